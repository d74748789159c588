import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { createDynamoRunStore, type Item } from '@diagnosis/core/store';
import { describe, expect, it } from 'vitest';
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

/** A client whose requests are counted; `dropRefusedItem` takes the refused item out of a transaction's refusal. */
function countingClient(options: { dropRefusedItem?: boolean } = {}) {
  const client = localDynamoClient();
  const sent: string[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      sent.push(String(context.commandName));
      try {
        return await next(args);
      } catch (error) {
        if (options.dropRefusedItem === true && error instanceof TransactionCanceledException) {
          for (const reason of error.CancellationReasons ?? []) delete reason.Item;
        }
        throw error;
      }
    },
    { step: 'initialize', name: 'countRequests' },
  );
  return { client, sent };
}

describe('createDynamoRunStore on DynamoDB Local', () => {
  const request = (runId: string) => ({
    runId,
    sessionId: 'session-1',
    enterpriseId: 'E1001',
    query: 'why do orders fail?',
    continueSession: false,
  });

  it('answers a replayed start with the stored run from the refusal itself, one request', async () => {
    const { client, sent } = countingClient();
    const table = await createTestTable(client);
    try {
      const store = createDynamoRunStore({ client, tableName: table.tableName });
      const runId = 'run-replayed-1';
      const queued = await store.queueRun(request(runId));
      sent.length = 0;

      const replay = await store.startRun(request(runId), { deadlineAt: Date.now() + 60_000 });

      expect(replay).toEqual({ started: false, run: queued.run });
      expect(sent).toEqual(['TransactWriteItemsCommand']);
    } finally {
      await table.drop();
      client.destroy();
    }
  });

  it('reads the stored run when a refusal comes without it', async () => {
    const { client, sent } = countingClient({ dropRefusedItem: true });
    const table = await createTestTable(client);
    try {
      const store = createDynamoRunStore({ client, tableName: table.tableName });
      const runId = 'run-replayed-1';
      const queued = await store.queueRun(request(runId));
      sent.length = 0;

      const replay = await store.startRun(request(runId), { deadlineAt: Date.now() + 60_000 });

      expect(replay).toEqual({ started: false, run: queued.run });
      expect(sent).toEqual(['TransactWriteItemsCommand', 'GetItemCommand']);
    } finally {
      await table.drop();
      client.destroy();
    }
  });
});
