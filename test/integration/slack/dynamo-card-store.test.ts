import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll } from 'vitest';
import { createDynamoCardStore } from '../../../functions/slack/dynamo-card-store.ts';
import { describeCardStoreContract } from '../../contract/card-store-contract.ts';
import { createTestTable, localDynamoClient } from '../../support/dynamodb.ts';

const client = localDynamoClient();
const documents = DynamoDBDocumentClient.from(client);
const drops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const drop of drops) await drop();
  client.destroy();
});

describeCardStoreContract('DynamoDB Local', async (options) => {
  const table = await createTestTable(client);
  drops.push(table.drop);
  return {
    store: createDynamoCardStore({ client, tableName: table.tableName, ...options }),
    rawItem: async (key) => {
      const answer = await documents.send(
        new GetCommand({ TableName: table.tableName, Key: key, ConsistentRead: true }),
      );
      return answer.Item;
    },
  };
});
