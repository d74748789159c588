import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDynamoChangeStore } from '@diagnosis/core/store';
import { describeChangeStoreContract } from '../../contract/change-store-contract.ts';
import { createTestTable, localDynamoClient, partitionItems } from '../../support/dynamodb.ts';

describeChangeStoreContract('DynamoDB Local', async () => {
  const client = localDynamoClient();
  const table = await createTestTable(client);
  const documents = DynamoDBDocumentClient.from(client);
  return {
    changes: createDynamoChangeStore({ client, tableName: table.tableName, retentionDays: 30 }),
    rawItems: (enterpriseId) => partitionItems(documents, table.tableName, [`CHANGES#${enterpriseId}`]),
    cleanup: async () => {
      await table.drop();
      client.destroy();
    },
  };
});
