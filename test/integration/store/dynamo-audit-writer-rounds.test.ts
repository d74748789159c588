/**
 * Issue 37 (DynamoDB requests per triggered run): a model round's two audit items — its step in the run's partition
 * and its raw reasoning in the reasoning partition — go out in one TransactWriteItems, each put keeping its own
 * condition, and the round keeps every guarantee a single put has: written whole or not at all, never overwritten, a
 * lost answer or a transaction conflict tried again, a second different round under taken keys an integrity error.
 * On DynamoDB Local; faults injected by a middleware inside the SDK's retry loop.
 */
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { AuditWriteError, createDynamoAuditWriter } from '@diagnosis/core/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_T0, stepEvent } from '../../support/audit-events.ts';
import { createTestTable, localDynamoClient } from '../../support/dynamodb.ts';

const client = localDynamoClient();
const documents = DynamoDBDocumentClient.from(client);
let table: Awaited<ReturnType<typeof createTestTable>>;

beforeAll(async () => {
  table = await createTestTable(client);
});
afterAll(async () => {
  await table.drop();
  client.destroy();
});

type Fault = 'none' | 'answer-lost' | 'conflict';

/** A client counting its requests by operation; its first `times` TransactWriteItems meet `fault`. */
function countingClient(fault: Fault = 'none', times = 0) {
  const counted = localDynamoClient({ maxAttempts: 3 });
  const requests: string[] = [];
  let faults = 0;
  counted.middlewareStack.add(
    (next, context) => async (args) => {
      const operation = String(context.commandName ?? '').replace(/Command$/, '');
      requests.push(operation);
      if (operation !== 'TransactWriteItems' || fault === 'none' || faults >= times) return next(args);
      faults += 1;
      if (fault === 'conflict') {
        throw Object.assign(new Error('Transaction cancelled'), {
          name: 'TransactionCanceledException',
          $metadata: { httpStatusCode: 400 },
          CancellationReasons: [{ Code: 'TransactionConflict' }, { Code: 'None' }],
        });
      }
      await next(args);
      throw Object.assign(new Error('the request socket timed out'), { name: 'TimeoutError' });
    },
    { step: 'finalizeRequest', name: 'countAndFault' },
  );
  return { counted, requests };
}

const writer = (counted: ReturnType<typeof localDynamoClient>, waits: number[] = []) =>
  createDynamoAuditWriter({
    client: counted,
    tableName: table.tableName,
    now: () => STORE_T0,
    sleep: async (ms) => {
      waits.push(ms);
    },
  });

async function roundItems(runId: string) {
  const read = (pk: string) =>
    documents.send(new GetCommand({ TableName: table.tableName, Key: { pk, sk: 'STEP#0001' }, ConsistentRead: true }));
  const [step, reasoning] = await Promise.all([read(`RUN#${runId}`), read(`REASONING#${runId}`)]);
  return { step: step.Item, reasoning: reasoning.Item };
}

describe('a model round’s audit items in one request', () => {
  it('writes the step and its reasoning with one TransactWriteItems, not a PutItem each', async () => {
    const { counted, requests } = countingClient();
    const audit = writer(counted);
    await audit.onModelStep(stepEvent('run-round-once', 1));
    expect(await audit.flush()).toEqual({ retriedWrites: [] });
    expect(requests).toEqual(['TransactWriteItems']);
    const { step, reasoning } = await roundItems('run-round-once');
    expect(step).toMatchObject({ entity: 'agent_step', step_number: 1 });
    expect(reasoning).toMatchObject({
      entity: 'agent_reasoning_audit',
      reasoning_content: '先查看 payment-gateway 的错误日志。',
    });
    counted.destroy();
  });

  it('completes a round whose answer was lost after it landed: the retry is answered as done', async () => {
    const { counted, requests } = countingClient('answer-lost', 1);
    const audit = writer(counted);
    await audit.onModelStep(stepEvent('run-round-lost', 1));
    const report = await audit.flush();
    expect(report.retriedWrites).toEqual([{ key: 'RUN#run-round-lost|STEP#0001', attempts: 2, errorCodes: [] }]);
    expect(requests).toEqual(['TransactWriteItems', 'TransactWriteItems']);
    const { step, reasoning } = await roundItems('run-round-lost');
    expect(step).toBeDefined();
    expect(reasoning).toBeDefined();
    counted.destroy();
  });

  it('tries a round refused by a transaction conflict again (the writer’s own tries: the SDK does not)', async () => {
    const waits: number[] = [];
    const { counted, requests } = countingClient('conflict', 2);
    const audit = writer(counted, waits);
    await audit.onModelStep(stepEvent('run-round-conflict', 1));
    const report = await audit.flush();
    expect(report.retriedWrites).toEqual([
      {
        key: 'RUN#run-round-conflict|STEP#0001',
        attempts: 3,
        errorCodes: ['TransactionCanceledException', 'TransactionCanceledException'],
      },
    ]);
    expect(requests).toEqual(['TransactWriteItems', 'TransactWriteItems', 'TransactWriteItems']);
    expect(waits).toEqual([200, 800]);
    expect((await roundItems('run-round-conflict')).step).toBeDefined();
    counted.destroy();
  });

  it('refuses a second, different round under taken keys on its first attempt, and overwrites nothing', async () => {
    const waits: number[] = [];
    const audit = writer(client, waits);
    await audit.onModelStep(stepEvent('run-round-twice', 1));
    await audit.flush();
    await audit.onModelStep(stepEvent('run-round-twice', 1, { reasoningContent: '另一段推理' }));
    const failure = await audit.flush().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(AuditWriteError);
    expect((failure as AuditWriteError).failedItems).toEqual([
      { key: 'RUN#run-round-twice|STEP#0001', reason: 'TransactionCanceledException' },
    ]);
    expect(waits).toEqual([]);
    expect((await roundItems('run-round-twice')).reasoning).toMatchObject({
      reasoning_content: '先查看 payment-gateway 的错误日志。',
    });
  });
});
