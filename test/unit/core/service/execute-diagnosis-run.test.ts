// NOTE: over 300 lines on purpose: one use case (executeDiagnosisRun) and its outcomes (cancellation, previous turn,
// stop reasons, failed audits) over the same in-memory stores.
import { cancelDiagnosis, cancelled, type DiagnosisDraft, emptyRunUsage, executeDiagnosisRun } from '@diagnosis/core';
import { createMemoryStores, RunStoreError } from '@diagnosis/core/store';
import { describe, expect, it } from 'vitest';
import { publishedOutcome } from '../../../support/audit-events.ts';
import { createFakeEvidence } from '../../../support/fake-evidence.ts';
import { draftAnswer, envelope, LOGS_INPUT, noConclusionDraft, supportedDraft } from '../../../support/run-fixtures.ts';
import { scriptedModel, textRound, toolRound } from '../../../support/scripted-model.ts';

const emptyUsage = emptyRunUsage;

const command = {
  runId: 'run-close',
  sessionId: 's',
  enterpriseId: 'E1001',
  query: 'E1001 的订单从 14:05 开始失败，为什么？',
  continueSession: false,
  remainingMs: 60_000,
};

/** A store whose first completion fails with `failure`; the rest behaves as the in-memory store. */
function storeFailingFirstCompletion(failure: Error) {
  const store = createMemoryStores();
  const complete = store.completeRun.bind(store);
  let calls = 0;
  store.completeRun = async (runId, outcome) => {
    calls += 1;
    if (calls === 1) throw failure;
    return complete(runId, outcome);
  };
  return store;
}

describe('executeDiagnosisRun', () => {
  it.each([
    ['too large for its item', new RunStoreError('RUN_ITEM_TOO_LARGE', 'too large'), 'RUN_ITEM_TOO_LARGE'],
    [
      'refused by the table',
      Object.assign(new Error('Item size has exceeded'), { name: 'ValidationException' }),
      'COMPLETION_FAILED',
    ],
  ])('closes the run as FAILED in a minimal item when its outcome is %s', async (_label, failure, code) => {
    const store = storeFailingFirstCompletion(failure);
    const result = await executeDiagnosisRun(command, {
      model: scriptedModel([textRound(JSON.stringify(noConclusionDraft()))]),
      evidence: createFakeEvidence().evidence,
      createStore: () => store,
      flushReserveMs: 100,
      limits: { finalRoundReserveMs: 100 },
    });
    expect(result).toMatchObject({ status: 'FAILED', report: { kind: 'FAILED', error_code: code } });
    const stored = await store.getRun(command.runId);
    expect(stored).toMatchObject({ status: 'FAILED', errorCode: code, draft: null, publishedResult: null });
    expect(stored?.usage?.modelCalls).toBe(1);
  });
});

describe('executeDiagnosisRun and cancellation', () => {
  const request = { ...command, runId: 'run-cancel', continueSession: false };
  const hangingLogs = () =>
    createFakeEvidence({
      query_logs: (call) =>
        new Promise((resolve) =>
          call.signal.addEventListener('abort', () => resolve({ status: 'ERROR', code: 'TIMEOUT' }), { once: true }),
        ),
    }).evidence;
  const logsRound = toolRound([
    {
      id: 'call-slow',
      name: 'query_logs',
      input: envelope(LOGS_INPUT),
    },
  ]);

  it('ends CANCELLED during a slow tool call once the cancel flag is set, its audit flushed and progress kept', async () => {
    const store = createMemoryStores();
    const model = scriptedModel([logsRound, textRound(JSON.stringify(noConclusionDraft()))]);
    const running = executeDiagnosisRun(request, {
      model,
      evidence: hangingLogs(),
      createStore: () => store,
      flushReserveMs: 100,
      limits: { finalRoundReserveMs: 100 },
      cancelPollMs: 10,
      progressWriteMs: 0,
    });
    while ((await store.getRun(request.runId))?.progress?.modelCalls !== 1) await new Promise((r) => setTimeout(r, 5));
    expect((await store.requestCancel(request.runId, cancelled(emptyUsage()).outcome))?.status).toBe('RUNNING');
    const result = await running;
    expect(result).toMatchObject({ status: 'CANCELLED', stopReason: 'CANCELLED', report: { kind: 'CANCELLED' } });
    expect(model.doGenerateCalls).toHaveLength(1);
    const stored = await store.getRun(request.runId);
    expect(stored).toMatchObject({ status: 'CANCELLED', stopReason: 'CANCELLED', usage: { modelCalls: 1 } });
    expect(stored?.progress).toMatchObject({ modelCalls: 1, toolCalls: 1 });
    expect((await store.listRunRecords(request.runId)).records.map((record) => record.entity)).toContain(
      'tool_invocation',
    );
  });

  it('reads the cancel flag with every model round, so a run cancelled between rounds uses no answer of another', async () => {
    const store = createMemoryStores();
    const model = scriptedModel([logsRound, textRound(JSON.stringify(noConclusionDraft()))]);
    // NOTE: the periodic read never comes in this test: only the next round's read (sent with its request) can see
    // the flag; that round's answer, a Draft, is never used.
    const evidence = createFakeEvidence({
      query_logs: async () => {
        await store.requestCancel(request.runId, cancelled(emptyUsage()).outcome);
        return { status: 'EMPTY' };
      },
    }).evidence;
    const result = await executeDiagnosisRun(request, {
      model,
      evidence,
      createStore: () => store,
      flushReserveMs: 100,
      limits: { finalRoundReserveMs: 100 },
      cancelPollMs: 3_600_000,
    });
    expect(result).toMatchObject({ status: 'CANCELLED', stopReason: 'CANCELLED', report: { kind: 'CANCELLED' } });
    expect(model.doGenerateCalls).toHaveLength(2);
  });

  it('never starts a QUEUED run that was cancelled, and answers with the stored CANCELLED result', async () => {
    const store = createMemoryStores();
    await store.queueRun(request);
    await store.requestCancel(request.runId, cancelled(emptyUsage()).outcome);
    const model = scriptedModel([textRound(JSON.stringify(noConclusionDraft()))]);
    const result = await executeDiagnosisRun(request, {
      model,
      evidence: createFakeEvidence().evidence,
      createStore: () => store,
      flushReserveMs: 100,
      limits: { finalRoundReserveMs: 100 },
    });
    expect(result).toMatchObject({ status: 'CANCELLED', report: { kind: 'CANCELLED' } });
    expect(model.doGenerateCalls).toHaveLength(0);
  });

  it('closes a QUEUED run as FAILED when the invocation has too little time, so it never waits forever', async () => {
    const store = createMemoryStores();
    await store.queueRun(request);
    await expect(
      executeDiagnosisRun(
        { ...request, remainingMs: 50 },
        {
          model: scriptedModel([]),
          evidence: createFakeEvidence().evidence,
          createStore: () => store,
          flushReserveMs: 10,
        },
      ),
    ).rejects.toMatchObject({ code: 'DEADLINE_TOO_SHORT' });
    expect(await store.getRun(request.runId)).toMatchObject({ status: 'FAILED', errorCode: 'DEADLINE_TOO_SHORT' });
  });

  it('leaves an ended run as it is when a cancel comes after the end', async () => {
    const store = createMemoryStores();
    const result = await executeDiagnosisRun(request, {
      model: scriptedModel([textRound(JSON.stringify(noConclusionDraft()))]),
      evidence: createFakeEvidence().evidence,
      createStore: () => store,
      flushReserveMs: 100,
      limits: { finalRoundReserveMs: 100 },
    });
    expect(result.status).toBe('PUBLISHED');
    expect(await cancelDiagnosis(request.runId, { store })).toMatchObject({
      status: 'SUCCEEDED',
      cancelRequestedAt: null,
    });
  });
});

describe('executeDiagnosisRun and the previous turn', () => {
  /** A published run of the session whose summary is far over 512 bytes even with every item cut short. */
  async function storeWithLongPublishedRun() {
    const store = createMemoryStores();
    const previous = { ...command, runId: 'run-previous', sessionId: 's-follow' };
    await store.startRun(previous);
    const long = (label: string) => `${label}：支付网关连接池耗尽导致订单服务调用超时`.repeat(3);
    const draft = {
      ...supportedDraft(['call-1']),
      conclusion: long('结论'),
      analysis: Array.from({ length: 5 }, (_, index) => ({
        ...(supportedDraft(['call-1']).analysis[0] as DiagnosisDraft['analysis'][number]),
        statement: long(`发现${index}`),
      })),
      limitations: { checked_scope: [], missing_info: Array.from({ length: 5 }, (_, index) => long(`缺少${index}`)) },
    };
    await store.completeRun(previous.runId, {
      ...publishedOutcome(['call-1']),
      draft,
      publishedResult: { draft, citations: [] },
    });
    return store;
  }

  it('cuts the previous turn to the run’s configured maxPreviousTurnBytes instead of failing the follow-up', async () => {
    const store = await storeWithLongPublishedRun();
    const model = scriptedModel([textRound(JSON.stringify(noConclusionDraft()))]);
    const result = await executeDiagnosisRun(
      { ...command, runId: 'run-follow', sessionId: 's-follow', continueSession: true },
      {
        model,
        evidence: createFakeEvidence().evidence,
        createStore: () => store,
        flushReserveMs: 100,
        limits: { finalRoundReserveMs: 100, maxPreviousTurnBytes: 600 },
      },
    );
    expect(result.status).toBe('PUBLISHED');
    const user = model.doGenerateCalls[0]?.prompt.find((message) => message.role === 'user');
    const text = user?.role === 'user' && user.content[0]?.type === 'text' ? user.content[0].text : '';
    const turn = JSON.parse(text).previous_turn;
    expect(turn).toMatchObject({ run_id: 'run-previous' });
    expect(Buffer.byteLength(JSON.stringify(turn))).toBeLessThanOrEqual(600);
    expect(Buffer.byteLength(JSON.stringify(turn))).toBeGreaterThan(300);
  });
});

describe('executeDiagnosisRun and stop reasons', () => {
  it('returns, stores and replays both STOP_IGNORED and the TOOL_CALL_BUDGET that ended collection', async () => {
    const store = createMemoryStores();
    const request = { ...command, runId: 'run-ignored' };
    const deps = {
      model: scriptedModel([
        toolRound([{ id: 'call-1', name: 'query_logs', input: envelope(LOGS_INPUT) }]),
        toolRound([
          {
            id: 'call-2',
            name: 'query_logs',
            input: envelope({ ...LOGS_INPUT, keyword: 'pool' }, { tool_call_id: 'call-1', evaluation: 'GAINED' }),
          },
        ]),
      ]),
      evidence: createFakeEvidence().evidence,
      createStore: () => store,
      flushReserveMs: 100,
      limits: { finalRoundReserveMs: 100, maxToolCalls: 1 },
    };

    const result = await executeDiagnosisRun(request, deps);

    expect(result).toMatchObject({
      status: 'FALLBACK',
      stopReason: 'STOP_IGNORED',
      collectionStopReason: 'TOOL_CALL_BUDGET',
    });
    expect(await store.getRun(request.runId)).toMatchObject({
      stopReason: 'STOP_IGNORED',
      collectionStopReason: 'TOOL_CALL_BUDGET',
    });
    expect(await executeDiagnosisRun(request, deps)).toMatchObject({
      stopReason: 'STOP_IGNORED',
      collectionStopReason: 'TOOL_CALL_BUDGET',
    });
  });

  it('keeps the TOOL_CALL_BUDGET that ended collection when the final round writes no valid Draft', async () => {
    const store = createMemoryStores();
    const request = { ...command, runId: 'run-invalid-final' };
    const result = await executeDiagnosisRun(request, {
      model: scriptedModel([
        toolRound([{ id: 'call-1', name: 'query_logs', input: envelope(LOGS_INPUT) }]),
        textRound('根据日志，原因是连接池耗尽。'),
      ]),
      evidence: createFakeEvidence().evidence,
      createStore: () => store,
      flushReserveMs: 100,
      limits: { finalRoundReserveMs: 100, maxToolCalls: 1 },
    });

    expect(result).toMatchObject({ status: 'FALLBACK', stopReason: null, collectionStopReason: 'TOOL_CALL_BUDGET' });
    expect(await store.getRun(request.runId)).toMatchObject({ collectionStopReason: 'TOOL_CALL_BUDGET' });
  });
});

describe('executeDiagnosisRun and a failed audit', () => {
  it('logs why the audit failed (class, item kind, AWS error code, never a value) when the flush fails', async () => {
    const store = createMemoryStores({ failWrite: (item) => item.sk.startsWith('TOOL#') });
    const lines: Record<string, unknown>[] = [];
    const result = await executeDiagnosisRun(
      { ...command, runId: 'run-audit-fails' },
      {
        model: scriptedModel([
          toolRound([{ id: 'call-secret-id', name: 'query_logs', input: envelope(LOGS_INPUT) }]),
          textRound(JSON.stringify(noConclusionDraft())),
        ]),
        evidence: createFakeEvidence().evidence,
        createStore: () => store,
        flushReserveMs: 100,
        limits: { finalRoundReserveMs: 100 },
        log: (entry) => lines.push(entry),
      },
    );
    expect(result).toMatchObject({ status: 'FAILED', report: { error_code: 'AUDIT_FAILED' } });
    expect(lines.filter((line) => line.message === 'audit failed')).toEqual([
      {
        message: 'audit failed',
        runId: 'run-audit-fails',
        stage: 'flush',
        errorClass: 'AuditWriteError',
        failedWrites: [{ item: 'TOOL', errorCode: 'InjectedFailure' }],
      },
    ]);
    expect(JSON.stringify(lines)).not.toContain('call-secret-id');
  });
});

describe('executeDiagnosisRun and a failed judge audit', () => {
  it('logs why the audit failed (stage judge, the cause’s classes) when the judge’s step could not be audited', async () => {
    const memory = createMemoryStores();
    const store = {
      ...memory,
      async onModelStep(event: Parameters<typeof memory.onModelStep>[0]) {
        if (event.role === 'JUDGE') throw new RunStoreError('CORRUPT_ITEM', 'agent_step item fails its schema at x');
        return memory.onModelStep(event);
      },
    };
    const lines: Record<string, unknown>[] = [];
    const result = await executeDiagnosisRun(
      { ...command, runId: 'run-judge-audit-fails' },
      {
        model: scriptedModel([
          toolRound([{ id: 'call-logs-1', name: 'query_logs', input: envelope(LOGS_INPUT) }]),
          textRound(draftAnswer(supportedDraft(['call-logs-1']))),
        ]),
        evidence: createFakeEvidence().evidence,
        createStore: () => store,
        flushReserveMs: 100,
        limits: { finalRoundReserveMs: 100 },
        semanticGuard: { mode: 'enforce', model: scriptedModel([textRound('{}')], 'judge-model') },
        log: (entry) => lines.push(entry),
      },
    );
    expect(result).toMatchObject({ status: 'FAILED', report: { error_code: 'AUDIT_FAILED' } });
    expect(result.usage.modelCalls).toBe(3);
    expect(lines.filter((line) => line.message === 'audit failed')).toEqual([
      {
        message: 'audit failed',
        runId: 'run-judge-audit-fails',
        stage: 'judge',
        errorClass: 'AuditFailure < RunStoreError',
      },
    ]);
    expect(JSON.stringify(lines)).not.toContain('schema at x');
  });
});
