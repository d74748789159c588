import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { createDynamoAuditWriter, createDynamoRunStore, type Item } from '@diagnosis/core/store';
import { describeAuditWriterContract } from '../../contract/audit-writer-contract.ts';
import { createTestTable, localDynamoClient } from '../../support/dynamodb.ts';

describeAuditWriterContract('DynamoDB Local', async ({ now, reasoningRetentionDays }) => {
  const client = localDynamoClient();
  const table = await createTestTable(client);
  const audit = createDynamoAuditWriter({
    client,
    tableName: table.tableName,
    now,
    ...(reasoningRetentionDays === undefined ? {} : { reasoningRetentionDays }),
  });
  const store = createDynamoRunStore({ client, tableName: table.tableName, now });
  const documents = DynamoDBDocumentClient.from(client);
  return {
    audit,
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
