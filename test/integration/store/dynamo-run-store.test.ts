import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { createDynamoRunStore, type Item } from '@diagnosis/core/store';
import { describeRunStoreContract } from '../../contract/run-store-contract.ts';
import { createTestTable, localDynamoClient } from '../../support/dynamodb.ts';

describeRunStoreContract('DynamoDB Local', async ({ now, sessionPageSize, maxOpenRuns }) => {
  const client = localDynamoClient();
  const table = await createTestTable(client);
  const store = createDynamoRunStore({
    client,
    tableName: table.tableName,
    now,
    ...(sessionPageSize === undefined ? {} : { sessionPageSize }),
    ...(maxOpenRuns === undefined ? {} : { maxOpenRuns }),
  });
  const documents = DynamoDBDocumentClient.from(client);
  return {
    store,
    rawItems: async (runId) => {
      const items: Item[] = [];
      for (const pk of [`RUN#${runId}`, `REASONING#${runId}`, `PSEUDONYMS#${runId}`]) {
        const page = await documents.send(
          new QueryCommand({
            TableName: table.tableName,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': pk },
          }),
        );
        items.push(...((page.Items ?? []) as Item[]));
      }
      return items;
    },
    cleanup: async () => {
      await table.drop();
      client.destroy();
    },
  };
});
