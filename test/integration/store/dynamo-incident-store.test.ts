import { createDynamoIncidentStore } from '@diagnosis/core/store';
import { afterAll } from 'vitest';
import { describeIncidentStoreContract } from '../../contract/incident-store-contract.ts';
import { createTestTable, localDynamoClient } from '../../support/dynamodb.ts';

const client = localDynamoClient();
afterAll(() => client.destroy());

describeIncidentStoreContract('DynamoDB Local', async () => {
  const table = await createTestTable(client);
  return { store: createDynamoIncidentStore({ client, tableName: table.tableName }), cleanup: table.drop };
});
