import type { LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { type ProgressSnapshot, reviewDraftSemantics } from '@diagnosis/core';
import { describe, expect, it } from 'vitest';
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
const VERDICTS = JSON.stringify({
  analysis: [{ index: 0, verdict: 'SUPPORTED', reason: 'c1 显示连接池耗尽' }],
  conclusion: { verdict: 'SUPPORTED', reason: '由第 0 条推出' },
});

/** The JSON user message the judge received. */
function judgePrompt(call: LanguageModelV4CallOptions): {
  draft: { analysis: { evidence: unknown[] }[] };
  evidence: { tool_name: string }[];
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
    expect(input?.evidence.map((entry) => entry.tool_name)).toEqual(['query_logs']);
    expect(input?.draft.analysis.map((item) => item.evidence)).toEqual([[0]]);
  });
});
