/**
 * The store's write-behind queue on DynamoDB Local: a burst of 200 tool invocations (what one model round that asks
 * for 200 tool calls emits) never has more than `maxWritesInFlight` puts on the wire, every item still lands, and two
 * writes to one key go out one after the other, in the order they were emitted. Counted by a middleware on the client.
 */
import { AuditWriteError, createDynamoStores, type StoredToolInvocation } from '@diagnosis/core/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_T0, stepEvent, toolEvent } from '../../support/audit-events.ts';
import { createTestTable, localDynamoClient } from '../../support/dynamodb.ts';
import { countWritesInFlight } from '../../support/write-counter.ts';

const reader = localDynamoClient();
let table: Awaited<ReturnType<typeof createTestTable>>;

beforeAll(async () => {
  table = await createTestTable(reader);
});
afterAll(async () => {
  await table.drop();
  reader.destroy();
});

/** A store on a client of its own, counted, with the given bound. */
function countedStore(maxWritesInFlight: number) {
  const client = localDynamoClient();
  const counter = countWritesInFlight(client);
  const store = createDynamoStores({ client, tableName: table.tableName, now: () => STORE_T0, maxWritesInFlight });
  return { store, counter, close: () => client.destroy() };
}

async function toolRecords(runId: string): Promise<StoredToolInvocation[]> {
  const store = createDynamoStores({ client: reader, tableName: table.tableName });
  const records: StoredToolInvocation[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.listRunRecords(runId, { limit: 100, ...(cursor === undefined ? {} : { cursor }) });
    records.push(...(page.records.filter((record) => record.entity === 'tool_invocation') as StoredToolInvocation[]));
    cursor = page.cursor ?? undefined;
  } while (cursor !== undefined);
  return records;
}

/** One round's audit as the harness emits it: the step (two items), then 200 tool invocations, none awaited apart. */
async function emitRound(store: ReturnType<typeof createDynamoStores>, runId: string) {
  await store.startRun({ runId, sessionId: 'session-1', enterpriseId: 'E1001', query: 'q', continueSession: false });
  await store.onModelStep(stepEvent(runId, 1));
  for (let index = 0; index < 200; index += 1) {
    await store.onToolInvocation(
      toolEvent(
        runId,
        `call_${index}`,
        index % 4 === 3 ? { disposition: 'REJECTED', status: null, code: 'INVALID_INPUT', result: null } : {},
      ),
    );
  }
  await store.flush();
}

describe('createDynamoStores — bounded write-behind', () => {
  it('keeps at most 16 audit puts in flight for a round of 200 tool invocations, and writes them all', async () => {
    const { store, counter, close } = countedStore(16);
    try {
      await emitRound(store, 'run-bounded-16');
      expect(counter.auditPeak()).toBe(16);
      // The round's step and reasoning in one request, then one put a tool invocation.
      expect(counter.writes()).toHaveLength(201);
      expect(await toolRecords('run-bounded-16')).toHaveLength(200);
    } finally {
      close();
    }
  });

  it('keeps the bound it is given (4)', async () => {
    const { store, counter, close } = countedStore(4);
    try {
      await emitRound(store, 'run-bounded-4');
      expect(counter.auditPeak()).toBe(4);
      expect(await toolRecords('run-bounded-4')).toHaveLength(200);
    } finally {
      close();
    }
  });

  it('puts every write on the wire at once without a bound (the store before the queue had one)', async () => {
    const { store, counter, close } = countedStore(Number.POSITIVE_INFINITY);
    try {
      await emitRound(store, 'run-unbounded');
      // NOTE: the baseline the bound is measured against; it also shows the counter sees concurrent puts at all.
      expect(counter.auditPeak()).toBeGreaterThan(16);
    } finally {
      close();
    }
  });

  it('sends a second write to the same key only after the first was answered, so the first one is kept', async () => {
    const { store, counter, close } = countedStore(4);
    const runId = 'run-same-key';
    try {
      await store.startRun({
        runId,
        sessionId: 'session-1',
        enterpriseId: 'E1001',
        query: 'q',
        continueSession: false,
      });
      for (let index = 0; index < 40; index += 1) {
        await store.onToolInvocation(
          toolEvent(runId, index === 10 || index === 30 ? 'call_same' : `call_${index}`, {
            ...(index === 30 ? { status: 'ERROR', code: 'INTERNAL', result: null, errorDetail: 'second' } : {}),
          }),
        );
      }
      const failure = await store.flush().then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(AuditWriteError);
      expect((failure as AuditWriteError).failedItems).toEqual([
        { key: `RUN#${runId}|TOOL#call_same`, reason: 'ConditionalCheckFailedException' },
      ]);
      const [first, second] = counter.writes().filter((write) => write.key === `RUN#${runId}|TOOL#call_same`);
      expect(second?.sentAt).toBeGreaterThan(first?.answeredAt ?? Number.POSITIVE_INFINITY);
      const kept = (await toolRecords(runId)).filter((record) => record.toolCallId === 'call_same');
      expect(kept).toHaveLength(1);
      expect(kept[0]).toMatchObject({ status: 'READY', errorDetail: null });
      expect(counter.auditPeak()).toBeLessThanOrEqual(4);
    } finally {
      close();
    }
  });
});
