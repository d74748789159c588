import { type ProgressSnapshot, reviewDraftSemantics } from '@diagnosis/core';
import { registerTelemetry } from 'ai';
import { describe, expect, it } from 'vitest';
import { judgeAnswer } from '../../../support/judge-answer.ts';
import { supportedDraft, testRun } from '../../../support/run-fixtures.ts';
import { scriptedModel, textRound } from '../../../support/scripted-model.ts';

// NOTE: registerTelemetry is process-global; this file is isolated by vitest's per-file module isolation.
describe('reviewDraftSemantics — telemetry', () => {
  it('passes the run’s ids and the semantic_guard function id to the judge call’s telemetry', async () => {
    const starts: Record<string, unknown>[] = [];
    registerTelemetry({ onStart: (event) => void starts.push(event as unknown as Record<string, unknown>) });
    const progress: ProgressSnapshot = {
      modelCalls: 2,
      toolCalls: 1,
      rejectedToolCalls: 0,
      totalTokens: 500,
      checks: [{ toolCallId: 'c1', toolName: 'query_logs', status: 'READY', empty: false, evaluation: null }],
    };
    const verdicts = {
      analysis: [{ index: 0, verdict: 'SUPPORTED', reason: '理由' }],
      conclusion: { verdict: 'SUPPORTED', reason: '结论理由' },
      recommendations: [{ index: 0, verdict: 'SUPPORTED', reason: '建议理由' }],
      action_plan: [{ index: 0, verdict: 'SUPPORTED', reason: '步骤理由' }],
    };
    const review = await reviewDraftSemantics(
      {
        run: testRun(),
        query: '订单为什么失败？',
        execution: { draft: supportedDraft(['c1']), progress, stopReason: null },
        evidenceGuard: { ok: true, citations: [{ tool_call_id: 'c1', tool_name: 'query_logs', empty: false }] },
        observations: new Map(),
      },
      { mode: 'enforce', model: scriptedModel([textRound(judgeAnswer(verdicts))], 'judge-model') },
    );

    expect(review).toMatchObject({ outcome: 'JUDGED' });
    expect(starts).toHaveLength(1);
    expect(starts[0]).toMatchObject({
      functionId: 'semantic_guard',
      runtimeContext: { runId: 'run-1', sessionId: 'session-1' },
      recordInputs: false,
      recordOutputs: false,
    });
  });
});
