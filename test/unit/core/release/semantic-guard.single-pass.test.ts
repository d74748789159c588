import type { LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { type ProgressSnapshot, reviewDraftSemantics } from '@diagnosis/core';
import { describe, expect, it } from 'vitest';
import { judgeAnswer } from '../../../support/judge-answer.ts';
import { supportedDraft, testRun } from '../../../support/run-fixtures.ts';
import { scriptedModel, textRound } from '../../../support/scripted-model.ts';

const progress = (...toolCallIds: string[]): ProgressSnapshot => ({
  modelCalls: 2,
  toolCalls: toolCallIds.length,
  rejectedToolCalls: 0,
  totalTokens: 500,
  checks: toolCallIds.map((toolCallId) => ({
    toolCallId,
    toolName: 'query_logs' as const,
    status: 'READY' as const,
    empty: false,
    evaluation: null,
  })),
});
const VERDICTS = judgeAnswer({
  analysis: [{ index: 0, verdict: 'SUPPORTED', reason: 'c1 显示连接池耗尽' }],
  conclusion: { verdict: 'SUPPORTED', reason: '由第 0 条推出' },
  recommendations: [{ index: 0, verdict: 'SUPPORTED', reason: '依据第 0 条' }],
  action_plan: [{ index: 0, verdict: 'SUPPORTED', reason: '依据第 0 条' }],
});

/** The JSON user message the judge received. */
function judgePrompt(call: LanguageModelV4CallOptions): {
  draft: { analysis: [string, string, unknown[], string?][] };
  evidence: [string, unknown][];
} {
  const message = call.prompt.find((entry) => entry.role === 'user');
  const text = message?.role === 'user' ? message.content.map((part) => (part.type === 'text' ? part.text : '')) : [];
  return JSON.parse(text.join(''));
}

describe('reviewDraftSemantics', () => {
  it('asks no judge when the handed EvidenceGuard result failed, even for a Draft its progress would verify', async () => {
    const judge = scriptedModel([]);
    const review = await reviewDraftSemantics(
      {
        run: testRun(),
        query: 'E1001 的订单为什么失败？',
        execution: { draft: supportedDraft(['c1']), progress: progress('c1'), stopReason: null },
        evidenceGuard: { ok: false, code: 'GUARD_UNKNOWN_CITATION', analysisIndex: 0 },
        observations: new Map(),
      },
      { mode: 'enforce', model: judge },
    );
    expect(review).toBeNull();
    expect(judge.doGenerateCalls).toHaveLength(0);
  });

  it('judges from the handed snapshot without checking the Draft again', async () => {
    const judge = scriptedModel([textRound(VERDICTS)]);
    const review = await reviewDraftSemantics(
      {
        run: testRun(),
        query: 'E1001 的订单为什么失败？',
        // NOTE: no READY check c1 in the progress: a guard that checked the Draft itself would refuse it.
        execution: { draft: supportedDraft(['c1']), progress: progress(), stopReason: null },
        evidenceGuard: { ok: true, citations: [{ tool_call_id: 'c1', tool_name: 'query_logs', empty: false }] },
        observations: new Map(),
      },
      { mode: 'enforce', model: judge },
    );
    expect(review).toMatchObject({ mode: 'enforce', outcome: 'JUDGED' });
    const [call] = judge.doGenerateCalls;
    // The handed snapshot's one citation (c1) is the judge's one evidence entry, which the item names by index.
    const input = call === undefined ? undefined : judgePrompt(call);
    expect(input?.evidence.map(([tool]) => tool)).toEqual(['query_logs']);
    expect(input?.draft.analysis.map(([, , evidence]) => evidence)).toEqual([[0]]);
  });

  it('hands the judge the trace ids the Draft names and drops those that link nothing', async () => {
    const judge = scriptedModel([textRound(VERDICTS)]);
    const draft = supportedDraft(['c1']);
    const [item] = draft.analysis;
    if (item === undefined) throw new Error('fixture has no item');
    const lines = ['t-named-0001', 't-alone-0002'].map((trace_id, index) => ({
      timestamp: `2026-11-30T06:1${index}:00.000Z`,
      level: 'ERROR',
      service: 'payment-gateway',
      message: `Connection is not available #${index}`,
      trace_id,
    }));
    await reviewDraftSemantics(
      {
        run: testRun(),
        query: 'E1001 的订单为什么失败？',
        execution: {
          draft: { ...draft, analysis: [{ ...item, statement: '请求 t-named-0001 等待连接 3 秒后超时' }] },
          progress: progress('c1'),
          stopReason: null,
        },
        evidenceGuard: { ok: true, citations: [{ tool_call_id: 'c1', tool_name: 'query_logs', empty: false }] },
        observations: new Map([
          ['c1', { tool_call_id: 'c1', evidence_status: 'OK', data: { matched: 2, lines }, requires_evaluation: true }],
        ]),
      },
      { mode: 'enforce', model: judge },
    );
    const [call] = judge.doGenerateCalls;
    const text = call === undefined ? '' : JSON.stringify(judgePrompt(call).evidence);
    expect(text).toContain('"t-named-0001"');
    expect(text).not.toContain('t-alone-0002');
  });
});
