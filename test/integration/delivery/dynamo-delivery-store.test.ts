import { afterAll } from 'vitest';
import { createDynamoDeliveryStore } from '../../../functions/delivery/delivery-store.ts';
import { describeDeliveryStoreContract } from '../../contract/delivery-store-contract.ts';
import { createTestTable, localDynamoClient } from '../../support/dynamodb.ts';

const client = localDynamoClient();
const drops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const drop of drops) await drop();
});

describeDeliveryStoreContract('DynamoDB Local', async () => {
  const table = await createTestTable(client);
  drops.push(table.drop);
  return createDynamoDeliveryStore({ client, tableName: table.tableName });
});
