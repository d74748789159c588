/**
 * Issue 32 item 13: an audit write that fails transiently — its answer lost after it landed (a timeout or a reset
 * under load), or throttled for longer than the SDK's own attempts — must not fail a run that has already spent its
 * model calls. Faults are injected by a middleware inside the SDK's retry loop, on real DynamoDB Local.
 * NOTE: over 300 lines on purpose: one failure (a transient audit write) seen from the writer, the run and a real
 * socket, over one fault-injecting middleware and one table.
 */
import { DynamoDBClient, ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { executeDiagnosisRun } from '@diagnosis/core';
import { AuditWriteError, createDynamoStores, type StoredToolInvocation } from '@diagnosis/core/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_T0, stepEvent, toolEvent } from '../../support/audit-events.ts';
import { createTestTable, localDynamoClient, partitionItems } from '../../support/dynamodb.ts';
import { loadDynamoWireAnswer, startDynamoFaultProxy } from '../../support/dynamodb-fault-proxy.ts';
import { createFakeEvidence } from '../../support/fake-evidence.ts';
import { envelope, LOGS_INPUT, noConclusionDraft } from '../../support/run-fixtures.ts';
import { scriptedModel, textRound, toolRound } from '../../support/scripted-model.ts';

const client = localDynamoClient();
let table: Awaited<ReturnType<typeof createTestTable>>;

beforeAll(async () => {
  table = await createTestTable(client);
});
afterAll(async () => {
  await table.drop();
  client.destroy();
});

type Fault = 'answer-lost' | 'throttled';

/**
 * A client (the SDK's 3 attempts) whose puts of one sort key meet `fault` on their first `times` attempts:
 * `answer-lost` lets the put reach the table and then loses its answer (a timeout, as a starved process sees it);
 * `throttled` refuses it before it reaches the table.
 */
function faultyClient(sortKey: string, fault: Fault, times: number) {
  const faulty = localDynamoClient({ maxAttempts: 3 });
  let attempts = 0;
  faulty.middlewareStack.add(
    (next) => async (args) => {
      const input = args.input as { Item?: { sk?: { S?: string } } };
      if (input.Item?.sk?.S !== sortKey) return next(args);
      attempts += 1;
      if (attempts > times) return next(args);
      if (fault === 'throttled') {
        throw new ProvisionedThroughputExceededException({
          message: 'Rate exceeded for table',
          $metadata: { httpStatusCode: 400 },
        });
      }
      await next(args);
      throw Object.assign(new Error('the request socket timed out'), { name: 'TimeoutError' });
    },
    { step: 'finalizeRequest', name: 'injectFault' },
  );
  return { faulty, attempts: () => attempts };
}

async function writeRun(
  runId: string,
  faulty: ReturnType<typeof localDynamoClient>,
  waits: number[],
  writeBudget?: AbortSignal,
  /** Called during each wait between tries (after it is recorded). */
  duringWait?: () => void,
) {
  const store = createDynamoStores({
    client: faulty,
    tableName: table.tableName,
    now: () => STORE_T0,
    sleep: async (ms) => {
      waits.push(ms);
      duringWait?.();
    },
    ...(writeBudget === undefined ? {} : { writeBudget }),
  });
  await store.startRun({ runId, sessionId: 's', enterpriseId: 'E1001', query: 'q', continueSession: false });
  await store.onModelStep(stepEvent(runId, 1));
  await store.onToolInvocation(toolEvent(runId, 'call_faulty'));
  return store;
}

const toolItems = async (runId: string) =>
  (await partitionItems(DynamoDBDocumentClient.from(client), table.tableName, [`RUN#${runId}`])).filter(
    (item) => item.entity === 'tool_invocation',
  ) as unknown as StoredToolInvocation[];

describe('createDynamoAuditWriter under transient failures', () => {
  it('completes a put whose first answer was lost after it landed (the SDK’s retry finds its own item)', async () => {
    const { faulty, attempts } = faultyClient('TOOL#call_faulty', 'answer-lost', 1);
    const waits: number[] = [];
    const store = await writeRun('run-answer-lost', faulty, waits);
    // The flush names the write that needed a second attempt, and why the writer saw it refused.
    await expect(store.flush()).resolves.toEqual({
      retriedWrites: [
        { key: 'RUN#run-answer-lost|TOOL#call_faulty', attempts: 2, errorCodes: ['ConditionalCheckFailedException'] },
      ],
    });
    expect(attempts()).toBe(2);
    expect(await toolItems('run-answer-lost')).toHaveLength(1);
    faulty.destroy();
  });

  it('tries a throttled put again after the SDK’s own attempts are spent, and it lands', async () => {
    const { faulty, attempts } = faultyClient('TOOL#call_faulty', 'throttled', 4);
    const waits: number[] = [];
    const store = await writeRun('run-throttled-briefly', faulty, waits);
    await expect(store.flush()).resolves.toEqual({
      retriedWrites: [
        {
          key: 'RUN#run-throttled-briefly|TOOL#call_faulty',
          attempts: 5,
          errorCodes: ['ProvisionedThroughputExceededException'],
        },
      ],
    });
    expect(attempts()).toBe(5);
    expect(waits).toEqual([200]);
    expect(await toolItems('run-throttled-briefly')).toHaveLength(1);
    faulty.destroy();
  });

  it('fails at flush, naming the write and its AWS error code, when throttling outlasts every try', async () => {
    const { faulty, attempts } = faultyClient('TOOL#call_faulty', 'throttled', 1_000);
    const waits: number[] = [];
    const store = await writeRun('run-throttled', faulty, waits);
    const failure = await store.flush().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(AuditWriteError);
    expect((failure as AuditWriteError).failedItems).toEqual([
      { key: 'RUN#run-throttled|TOOL#call_faulty', reason: 'ProvisionedThroughputExceededException' },
    ]);
    expect(attempts()).toBe(9);
    expect(waits).toEqual([200, 800]);
    faulty.destroy();
  });

  it('tries a throttled put again for as long as the run’s write budget lasts, past its three tries', async () => {
    const { faulty, attempts } = faultyClient('TOOL#call_faulty', 'throttled', 12);
    const waits: number[] = [];
    const budget = new AbortController();
    const store = await writeRun('run-throttled-budgeted', faulty, waits, budget.signal);
    await expect(store.flush()).resolves.toMatchObject({
      retriedWrites: [{ key: 'RUN#run-throttled-budgeted|TOOL#call_faulty', attempts: 13 }],
    });
    expect(attempts()).toBe(13);
    expect(waits).toEqual([200, 800, 800, 800]);
    expect(await toolItems('run-throttled-budgeted')).toHaveLength(1);
    faulty.destroy();
  });

  it('tries nothing again once the write budget has ended, and a write queued after it is refused unsent', async () => {
    const { faulty, attempts } = faultyClient('TOOL#call_faulty', 'throttled', 1_000);
    const budget = new AbortController();
    const waits: number[] = [];
    const store = await writeRun('run-budget-ended', faulty, waits, budget.signal, () => budget.abort());
    const failure = await store.flush().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect((failure as AuditWriteError).failedItems).toEqual([
      { key: 'RUN#run-budget-ended|TOOL#call_faulty', reason: 'ProvisionedThroughputExceededException' },
    ]);
    // One try (the SDK's three attempts), the budget ended during its wait: no second try.
    expect(attempts()).toBe(3);
    expect(waits).toEqual([200]);
    await store.onToolInvocation(toolEvent('run-budget-ended', 'call_late'));
    const late = await store.flush().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect((late as AuditWriteError).failedItems).toEqual([
      { key: 'RUN#run-budget-ended|TOOL#call_late', reason: 'AbortError' },
    ]);
    faulty.destroy();
  });

  it('still refuses a second, different record under a taken key on its first attempt', async () => {
    const waits: number[] = [];
    const store = await writeRun('run-duplicate', client, waits);
    await store.onToolInvocation(toolEvent('run-duplicate', 'call_faulty', { errorDetail: 'second' }));
    const failure = await store.flush().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect((failure as AuditWriteError).failedItems).toEqual([
      { key: 'RUN#run-duplicate|TOOL#call_faulty', reason: 'ConditionalCheckFailedException' },
    ]);
    expect(waits).toEqual([]);
  });
});

describe('executeDiagnosisRun when an audit write is retried', () => {
  async function diagnose(runId: string, faulty: ReturnType<typeof localDynamoClient>) {
    const lines: Record<string, unknown>[] = [];
    const result = await executeDiagnosisRun(
      {
        runId,
        sessionId: 's',
        enterpriseId: 'E1001',
        query: 'E1001 的订单失败，为什么？',
        continueSession: false,
        remainingMs: 60_000,
      },
      {
        model: scriptedModel([
          toolRound([{ id: 'call_faulty', name: 'query_logs', input: envelope(LOGS_INPUT) }]),
          textRound(JSON.stringify(noConclusionDraft())),
        ]),
        evidence: createFakeEvidence().evidence,
        createStore: () =>
          createDynamoStores({ client: faulty, tableName: table.tableName, sleep: async () => undefined }),
        flushReserveMs: 100,
        limits: { finalRoundReserveMs: 100 },
        log: (entry) => lines.push(entry),
      },
    );
    return { result, retried: lines.filter((line) => line.message === 'audit writes retried') };
  }

  it('logs which write needed more attempts and why (item kind, attempts, AWS codes), and the run is not failed', async () => {
    const { faulty } = faultyClient('TOOL#call_faulty', 'throttled', 4);
    const { result, retried } = await diagnose('run-retried-logged', faulty);
    expect(result.status).not.toBe('FAILED');
    expect(retried).toEqual([
      {
        message: 'audit writes retried',
        runId: 'run-retried-logged',
        retriedWrites: [{ item: 'TOOL', attempts: 5, errorCodes: ['ProvisionedThroughputExceededException'] }],
        retriedWriteCount: 1,
      },
    ]);
    expect(JSON.stringify(retried)).not.toContain('call_faulty');
    faulty.destroy();
  });

  it('logs nothing of the kind when every write landed at its first attempt', async () => {
    const { retried } = await diagnose('run-clean', client);
    expect(retried).toEqual([]);
  });
});

/**
 * What a loaded machine really does to an audit put (issue 32 item 13), on a real socket through a proxy in front of
 * the engine: DynamoDB Local waits at most 10 s for its table's write lock, and a write that waited longer (its JVM
 * starved of CPU or paused) is refused with HTTP 500 InternalServerError, never written (its recorded bytes); and a
 * kept-alive connection the server closed while the client's starved event loop had not yet seen it is reset unanswered.
 */
describe('createDynamoAuditWriter on a real socket: a lock timeout, a reset connection', () => {
  const lockTimeout = loadDynamoWireAnswer('lock-timeout-500');

  async function throughProxy(runId: string, times: number, answer: typeof lockTimeout | 'reset' = lockTimeout) {
    const proxy = await startDynamoFaultProxy({ sortKey: 'TOOL#call_faulty', answer, times });
    const proxied = new DynamoDBClient({
      endpoint: proxy.endpoint,
      region: 'local',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      maxAttempts: 3,
    });
    const waits: number[] = [];
    const store = await writeRun(runId, proxied, waits);
    const flushed = await store.flush().then(
      (report) => report,
      (error: unknown) => error,
    );
    proxied.destroy();
    await proxy.close();
    return { flushed, waits, attempts: proxy.attempts() };
  }

  it('lands the put once the SDK tries it again, and names the write that needed it', async () => {
    const { flushed, waits, attempts } = await throughProxy('run-lock-timeout-once', 1);
    expect(flushed).toEqual({
      retriedWrites: [{ key: 'RUN#run-lock-timeout-once|TOOL#call_faulty', attempts: 2, errorCodes: [] }],
    });
    expect(attempts).toBe(2);
    expect(waits).toEqual([]);
    expect(await toolItems('run-lock-timeout-once')).toHaveLength(1);
  });

  it('lands the put after the SDK’s three attempts met the lock timeout (the case that failed the run before)', async () => {
    const { flushed, waits, attempts } = await throughProxy('run-lock-timeout-thrice', 3);
    expect(flushed).toEqual({
      retriedWrites: [
        { key: 'RUN#run-lock-timeout-thrice|TOOL#call_faulty', attempts: 4, errorCodes: ['InternalServerError'] },
      ],
    });
    expect(attempts).toBe(4);
    expect(waits).toEqual([200]);
    expect(await toolItems('run-lock-timeout-thrice')).toHaveLength(1);
  });

  it('lands a put whose connection was reset unanswered three times (a stale kept-alive connection each time)', async () => {
    const { flushed, waits, attempts } = await throughProxy('run-reset-thrice', 3, 'reset');
    expect(flushed).toEqual({
      retriedWrites: [{ key: 'RUN#run-reset-thrice|TOOL#call_faulty', attempts: 4, errorCodes: ['TimeoutError'] }],
    });
    expect(attempts).toBe(4);
    expect(waits).toEqual([200]);
    expect(await toolItems('run-reset-thrice')).toHaveLength(1);
  });
});
