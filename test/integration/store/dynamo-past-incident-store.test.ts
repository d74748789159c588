import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { createDynamoPastIncidentStore } from '@diagnosis/core/store';
import { describePastIncidentStoreContract } from '../../contract/past-incident-store-contract.ts';
import { createTestTable, localDynamoClient, partitionItems } from '../../support/dynamodb.ts';

describePastIncidentStoreContract('DynamoDB Local', async () => {
  const client = localDynamoClient();
  const table = await createTestTable(client);
  const documents = DynamoDBDocumentClient.from(client);
  return {
    incidents: createDynamoPastIncidentStore({ client, tableName: table.tableName }),
    rawItems: (enterpriseId) => partitionItems(documents, table.tableName, [`PAST#${enterpriseId}`]),
    putRawItem: async (item) => {
      await documents.send(new PutCommand({ TableName: table.tableName, Item: item }));
    },
    cleanup: async () => {
      await table.drop();
      client.destroy();
    },
  };
});
