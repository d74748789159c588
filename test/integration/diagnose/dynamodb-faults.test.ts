/**
 * A run whose DynamoDB fails in the middle of it, through a proxy on a real socket in front of DynamoDB Local: the
 * engine stalled (every request held unanswered), every connection reset, every write refused with the engine's
 * lock-timeout 500. Each run ends within its invocation's time with an honest status, every audit item of every
 * finished round is in the table, and the run is not left RUNNING.
 *
 * Times are scaled 1:5 from the deployed client's (docs/architecture.md, "DynamoDB faults"): its 3 s request timeout
 * and 1 s connection timeout are 600 ms and 200 ms here, the 3 s flush reserve 600 ms, and so a 20 s stall is 4 s.
 * The lock timeout lasts its full 5 s. The invocation has 12 s (the deployed 60 s).
 */
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { abandonedAt, closeAbandonedRun, type DiagnosisResult, executeDiagnosisRun } from '@diagnosis/core';
import { createDynamoClient, createDynamoRunStore, createDynamoStores } from '@diagnosis/core/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestTable, localDynamoClient, partitionItems } from '../../support/dynamodb.ts';
import { type DynamoFault, loadDynamoWireAnswer, startDynamoFaultWindows } from '../../support/dynamodb-fault-proxy.ts';
import { createFakeEvidence } from '../../support/fake-evidence.ts';
import { outcomeOf } from '../../support/finished-runs.ts';
import { draftAnswer, envelope, LOGS_INPUT, supportedDraft } from '../../support/run-fixtures.ts';
import { scriptedModel, textRound, toolRound } from '../../support/scripted-model.ts';
import { blocksText, startSlackWorld } from '../../support/slack-world.ts';

const SCALED_TIMEOUTS = { requestTimeoutMs: 600, connectionTimeoutMs: 200 };
const FLUSH_RESERVE_MS = 600;
const INVOCATION_MS = 12_000;

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

interface FaultRun {
  /** What the invocation answered: its result, the error it threw (its name), or that it had not ended. */
  result: DiagnosisResult | { threw: string } | 'STILL RUNNING';
  durationMs: number;
  faulted: number;
  items: Record<string, unknown>[];
}

/**
 * A three-round run (two tool rounds, then the Draft) on a client through the proxy; `fault` starts as the second
 * round begins, for `faultMs`.
 */
async function runThrough(runId: string, fault: DynamoFault, faultMs: number): Promise<FaultRun> {
  const proxy = await startDynamoFaultWindows();
  const proxied = createDynamoClient(
    { DIAGNOSIS_TABLE_NAME: table.tableName, DYNAMODB_ENDPOINT: proxy.endpoint },
    {},
    SCALED_TIMEOUTS,
  );
  const model = scriptedModel([
    toolRound([{ id: 'call_first', name: 'query_logs', input: envelope(LOGS_INPUT) }]),
    () => {
      proxy.inject(fault, faultMs);
      return toolRound([
        {
          id: 'call_second',
          name: 'query_logs',
          input: envelope(
            { ...LOGS_INPUT, service: 'payment-gateway' },
            { tool_call_id: 'call_first', evaluation: 'GAINED' },
          ),
        },
      ]);
    },
    textRound(draftAnswer(supportedDraft(['call_first', 'call_second']))),
  ]);
  const startedAt = Date.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    const result = await Promise.race([
      executeDiagnosisRun(
        {
          runId,
          sessionId: `s-${runId}`,
          enterpriseId: 'E1001',
          query: 'E1001 的订单失败，为什么？',
          continueSession: false,
          remainingMs: INVOCATION_MS,
        },
        {
          model,
          evidence: createFakeEvidence().evidence,
          createStore: (budget) =>
            createDynamoStores({ client: proxied, tableName: table.tableName, ...(budget ?? {}) }),
          flushReserveMs: FLUSH_RESERVE_MS,
          limits: { finalRoundReserveMs: 1_000 },
        },
      ).catch((error: unknown) => ({ threw: error instanceof Error ? error.name : typeof error })),
      new Promise<'STILL RUNNING'>((resolve) => {
        timer = setTimeout(() => resolve('STILL RUNNING'), INVOCATION_MS + 2_000);
      }),
    ]);
    const durationMs = Date.now() - startedAt;
    return {
      result,
      durationMs,
      faulted: proxy.faulted()[fault.kind],
      items: await partitionItems(documents, table.tableName, [`RUN#${runId}`]),
    };
  } finally {
    clearTimeout(timer);
    proxied.destroy();
    await proxy.close();
  }
}

const answerOf = (result: FaultRun['result']) =>
  typeof result === 'string' ? result : 'threw' in result ? `threw ${result.threw}` : result.status;

/** The run's audit items of each kind, by what they record, and its stored status. */
function audited(items: Record<string, unknown>[]) {
  return {
    steps: items
      .filter((item) => item.entity === 'agent_step')
      .map((item) => item.step_number)
      .sort(),
    tools: items
      .filter((item) => item.entity === 'tool_invocation')
      .map((item) => item.tool_call_id)
      .sort(),
    status: items.find((item) => item.entity === 'run')?.status,
  };
}

describe('a run whose DynamoDB fails in the middle of it', () => {
  it.for<[string, DynamoFault, number]>([
    ['stalled for 4 s (a 20 s stall, scaled)', { kind: 'stall' }, 4_000],
    ['resetting every connection for 3 s', { kind: 'reset' }, 3_000],
    [
      'refusing every write with its lock timeout (HTTP 500) for 5 s',
      { kind: 'answer-writes', answer: loadDynamoWireAnswer('lock-timeout-500') },
      5_000,
    ],
  ])(
    'ends within its invocation’s time with every audit item of every round when %s',
    { timeout: 30_000 },
    async ([, fault, ms], { annotate }) => {
      const run = await runThrough(`run-fault-${fault.kind}`, fault, ms);
      const stored = audited(run.items);
      await annotate(
        `${answerOf(run.result)} (stored ${String(stored.status)}) in ` +
          `${run.durationMs} ms of ${INVOCATION_MS}; ${run.faulted} requests faulted; audit items: ` +
          `${stored.steps.length} steps, ${stored.tools.length} tool calls`,
      );
      expect(run.result).not.toBe('STILL RUNNING');
      expect(run.durationMs).toBeLessThan(INVOCATION_MS);
      expect(run.faulted).toBeGreaterThan(0);
      expect(run.result).toMatchObject({ status: 'PUBLISHED' });
      expect(stored).toEqual({ steps: [1, 2, 3], tools: ['call_first', 'call_second'], status: 'SUCCEEDED' });
    },
  );

  it.for<[string, DynamoFault, string]>([
    [
      'every write is refused',
      { kind: 'answer-writes', answer: loadDynamoWireAnswer('lock-timeout-500') },
      'InternalServerError',
    ],
    ['the engine stalls', { kind: 'stall' }, 'AbortError'],
  ])(
    'ends within its invocation’s time when %s for longer than it lasts, and the run is closed once the table answers',
    { timeout: 30_000 },
    async ([, fault, thrown], { annotate }) => {
      const runId = `run-outlasting-${fault.kind}`;
      const run = await runThrough(runId, fault, 30_000);
      const stored = audited(run.items);
      await annotate(
        `${answerOf(run.result)} (stored ${String(stored.status)}) in ` +
          `${run.durationMs} ms of ${INVOCATION_MS}; ${run.faulted} requests faulted; audit items: ` +
          `${stored.steps.length} steps, ${stored.tools.length} tool calls`,
      );
      // The audit's tries end with its budget, and the completion, refused or unanswered too, fails before the
      // invocation's end: it answers with the table's error (the workflow's failure path), not a function cut off.
      expect(run.durationMs).toBeLessThan(INVOCATION_MS);
      expect(run.durationMs).toBeGreaterThanOrEqual(INVOCATION_MS - FLUSH_RESERVE_MS / 2);
      expect(run.result).toEqual({ threw: thrown });
      expect(stored.status).toBe('RUNNING');
      // The path that finds a run nobody works on any more closes it, once no invocation can still be running it.
      const runs = createDynamoRunStore({ client, tableName: table.tableName });
      const left = await runs.getRun(runId);
      if (left === null) throw new Error('the run is not in the table');
      const abandoned = abandonedAt(left, { flushReserveMs: FLUSH_RESERVE_MS });
      expect(abandoned).not.toBeNull();
      expect(await closeAbandonedRun(runs, left, abandoned ?? 0)).toBe(true);
      expect(await runs.getRun(runId)).toMatchObject({ status: 'FAILED', errorCode: 'RUN_ABANDONED' });
    },
  );
});

describe('the Slack card of a run whose DynamoDB stalls', () => {
  it('shows the run’s result once the table answers again, whatever the stall did to the card’s writes', async ({
    annotate,
  }) => {
    const proxy = await startDynamoFaultWindows();
    const world = await startSlackWorld({ handlerDynamo: { endpoint: proxy.endpoint, timeouts: SCALED_TIMEOUTS } });
    try {
      const runId = 'run-card-stalled';
      await world.triggeredRun(runId);
      await world.settle();
      world.advance(1_000);
      await world.runs.claimQueuedRun(runId, world.now() + 600_000);
      await world.settle();
      const card = world.cardsIn().find((message) => blocksText(message).includes(runId));
      if (card === undefined) throw new Error('the run has no card');
      // The run ends while the handlers' DynamoDB is stalled (a 20 s stall, scaled: 4 s of real time).
      world.advance(6_000);
      await world.runs.completeRun(runId, outcomeOf('PUBLISHED', supportedDraft(['call_0'])));
      proxy.inject({ kind: 'stall' }, 4_000);
      const startedAt = Date.now();
      await world.settle();
      const faulted = proxy.faulted().stall;
      await annotate(`card redrawn ${Date.now() - startedAt} ms after the stall began; ${faulted} requests stalled`);
      expect(faulted).toBeGreaterThan(0);
      const shown = world.cardsIn().find((message) => message.ts === card.ts);
      expect(blocksText(shown)).toContain('rate_correct');
      expect(world.cardsIn().filter((message) => blocksText(message).includes(runId))).toHaveLength(1);
    } finally {
      await world.close();
      await proxy.close();
    }
  }, 60_000);
});
