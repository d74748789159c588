import {
  type AuditWriter,
  buildProcessScorecard,
  type DiagnosisDraft,
  executeDiagnosisRun,
  type ProcessScorecard,
  type RunStore,
} from '@diagnosis/core';
import {
  createDynamoStores,
  createMemoryStores,
  type StoredStep,
  type StoredToolInvocation,
} from '@diagnosis/core/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestTable, localDynamoClient } from '../../support/dynamodb.ts';
import { createFakeEvidence } from '../../support/fake-evidence.ts';
import { judgeAnswer } from '../../support/judge-answer.ts';
import { draftAnswer, envelope, LOGS_INPUT, supportedDraft } from '../../support/run-fixtures.ts';
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

/** A Draft whose HYPOTHESIS the judge finds unsupported (removed in enforce mode). */
function draftWithHypothesis(): DiagnosisDraft {
  const draft = supportedDraft(['call-1']);
  return {
    ...draft,
    analysis: [
      ...draft.analysis,
      {
        type: 'HYPOTHESIS',
        statement: '可能是发布引起',
        evidence_status: 'SUPPORTED',
        tool_call_ids: ['call-1'],
        scope: null,
      },
    ],
  };
}

/** One run through the service: a call, a duplicate of it and a refused one, then a Draft the judge trims. */
async function runOnce(runId: string, createStore: () => RunStore & AuditWriter) {
  const reordered = {
    level: 'ERROR',
    service: 'order-service',
    end_time: LOGS_INPUT.end_time,
    start_time: LOGS_INPUT.start_time,
  };
  const agent = scriptedModel([
    toolRound([{ id: 'call-1', name: 'query_logs', input: envelope(LOGS_INPUT) }]),
    toolRound([
      {
        id: 'call-2',
        name: 'query_logs',
        input: envelope(reordered, { tool_call_id: 'call-1', evaluation: 'GAINED' }),
      },
      { id: 'call-3', name: 'query_mysql', input: { input: { query_name: 1 } } },
    ]),
    textRound(draftAnswer(draftWithHypothesis())),
  ]);
  const judge = scriptedModel([
    textRound(
      judgeAnswer({
        analysis: [
          { index: 0, verdict: 'SUPPORTED', reason: '日志显示连接池耗尽' },
          { index: 1, verdict: 'UNSUPPORTED', reason: '证据里没有发布记录' },
        ],
        conclusion: { verdict: 'SUPPORTED', reason: '由第 0 条推出' },
        recommendations: [{ index: 0, verdict: 'SUPPORTED', reason: '依据第 0 条' }],
        action_plan: [{ index: 0, verdict: 'SUPPORTED', reason: '依据第 0 条' }],
      }),
    ),
  ]);
  const finished: ProcessScorecard[] = [];
  const result = await executeDiagnosisRun(
    {
      runId,
      sessionId: 's',
      enterpriseId: 'E1001',
      query: 'E1001 的订单从 14:05 开始失败，为什么？',
      continueSession: false,
      remainingMs: 120_000,
    },
    {
      model: agent,
      evidence: createFakeEvidence().evidence,
      createStore,
      flushReserveMs: 100,
      limits: { finalRoundReserveMs: 100 },
      semanticGuard: { mode: 'enforce', model: judge },
      onRunFinished: (_result, _ms, scorecard) => finished.push(scorecard),
    },
  );
  return { result, finished };
}

async function recordsOf(store: RunStore, runId: string) {
  const { records } = await store.listRunRecords(runId, { limit: 100 });
  return {
    steps: records.filter((record): record is StoredStep => record.entity === 'agent_step'),
    tools: records.filter((record): record is StoredToolInvocation => record.entity === 'tool_invocation'),
  };
}

describe.each([
  ['DynamoDB Local', () => createDynamoStores({ client, tableName: table.tableName })],
  [
    'the in-memory store',
    (() => {
      const store = createMemoryStores();
      return () => store;
    })(),
  ],
])('the stored process scorecard (%s)', (_label, createStore) => {
  it('equals the scorecard recomputed from the stored audit, and is the one the metrics get', async () => {
    const runId = `run-scorecard-${Math.random().toString(36).slice(2, 10)}`;
    const { result, finished } = await runOnce(runId, createStore);
    expect(result.status).toBe('PUBLISHED');
    const store = createStore();
    const stored = await store.getRun(runId);
    if (stored === null) throw new Error('the run was not stored');
    const { steps, tools } = await recordsOf(store, runId);
    const recomputed = buildProcessScorecard(stored, steps, tools);
    expect(stored.processScorecard).toEqual(recomputed);
    expect(finished).toEqual([recomputed]);
    expect(recomputed).toMatchObject({
      rounds: 3,
      judgeCalls: 1,
      answeredWithoutTools: false,
      toolCalls: {
        total: 3,
        executed: 1,
        refused: 2,
        redundant: 1,
        refusedByCode: { DUPLICATE_CALL: 1, INVALID_INPUT: 1 },
      },
      guards: { draftItems: 3, removedItems: 1 },
    });
    expect(recomputed.tokens.total).toBe(result.usage.totalTokens);
  });
});
