import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { createDynamoFeedbackStore } from '@diagnosis/core/store';
import { describeFeedbackStoreContract } from '../../contract/feedback-store-contract.ts';
import { createTestTable, localDynamoClient } from '../../support/dynamodb.ts';

describeFeedbackStoreContract('DynamoDB Local', async () => {
  const client = localDynamoClient();
  const table = await createTestTable(client);
  const documents = DynamoDBDocumentClient.from(client);
  return {
    feedback: createDynamoFeedbackStore({ client, tableName: table.tableName }),
    rawItems: async (runId) =>
      (
        await documents.send(
          new QueryCommand({
            TableName: table.tableName,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': `FEEDBACK#${runId}` },
          }),
        )
      ).Items ?? [],
    cleanup: async () => {
      await table.drop();
      client.destroy();
    },
  };
});
