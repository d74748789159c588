import { type DiagnosisDraft, type ProgressSnapshot, releaseDiagnosis, verifyDraftEvidence } from '@diagnosis/core';
import { describe, expect, it } from 'vitest';

const check = (toolCallId: string, toolName: 'lookup_knowledge' | 'query_logs', empty = false) => ({
  toolCallId,
  toolName,
  status: 'READY' as const,
  empty,
  evaluation: null,
});
const progress: ProgressSnapshot = {
  modelCalls: 3,
  toolCalls: 3,
  rejectedToolCalls: 0,
  totalTokens: 900,
  checks: [check('k1', 'lookup_knowledge'), check('l1', 'query_logs'), check('l2', 'query_logs', true)],
};
/** k1: a lookup that returned past incidents and no runbook hit, so its id stands for past incidents. */
const PAST = { incidents: new Map<string, string>(), memoryOnlyLookups: new Set(['k1']) };
const usage = {
  modelCalls: 3,
  inputTokens: 800,
  outputTokens: 100,
  totalTokens: 900,
  cachedInputTokens: 0,
  toolCalls: 3,
  inputBytes: 50,
  outputBytes: 400,
  estimatedTokenRounds: 0,
};
type Item = DiagnosisDraft['analysis'][number];
const item = (type: Item['type'], ids: string[], statement = `${type} ${ids.join(',')}`): Item => ({
  type,
  statement,
  evidence_status: 'SUPPORTED',
  tool_call_ids: ids,
  scope: null,
});
const draftOf = (conclusion: string | null, analysis: Item[]): DiagnosisDraft => ({
  conclusion,
  analysis,
  action_plan: [],
  recommendations: [],
  limitations: { checked_scope: ['日志'], missing_info: conclusion === null ? ['原因'] : [] },
});

describe('verifyDraftEvidence with past incidents', () => {
  it('removes a FINDING whose only evidence is a lookup that returned past incidents, with a stable reason', () => {
    const draft = draftOf(null, [item('FINDING', ['k1']), item('FINDING', ['k1', 'l1'])]);
    const result = verifyDraftEvidence(draft, progress, PAST);
    expect(result).toMatchObject({ ok: true, removed: [{ index: 0, code: 'GUARD_PAST_INCIDENT_ONLY' }] });
    if (!result.ok) throw new Error('expected a verified Draft');
    expect(result.draft?.analysis).toEqual([draft.analysis[1]]);
    expect(result.draft?.limitations.missing_info[0]).toContain('历史事件');
    expect(result.citations.map((citation) => citation.tool_call_id)).toEqual(['k1', 'l1']);
  });

  it('counts an empty check beside the past incident as no evidence: the finding is still removed', () => {
    const result = verifyDraftEvidence(draftOf(null, [item('FINDING', ['k1', 'l2'])]), progress, PAST);
    expect(result).toMatchObject({ ok: true, removed: [{ index: 0, code: 'GUARD_PAST_INCIDENT_ONLY' }] });
  });

  it('keeps a HYPOTHESIS that rests on a past incident: that is what a lead is for', () => {
    const draft = draftOf(null, [item('HYPOTHESIS', ['k1'])]);
    expect(verifyDraftEvidence(draft, progress, PAST)).toEqual(verifyDraftEvidence(draft, progress));
    expect(verifyDraftEvidence(draft, progress, PAST)).not.toHaveProperty('removed');
  });

  it('withdraws a conclusion that rested on the removed finding: FALLBACK, as for any unsupported conclusion', () => {
    const draft = draftOf('和上次一样，支付渠道被停用', [item('FINDING', ['k1'], '上次是支付渠道被停用')]);
    const guard = verifyDraftEvidence(draft, progress, PAST);
    // Exactly: a failed check names what was removed but hands no Draft on (nothing of it is judged or published).
    expect(guard).toStrictEqual({
      ok: false,
      code: 'GUARD_CONCLUSION_UNSUPPORTED',
      analysisIndex: null,
      removed: [{ index: 0, code: 'GUARD_PAST_INCIDENT_ONLY' }],
    });
    const decision = releaseDiagnosis({
      execution: { draft, progress, stopReason: null, collectionStopReason: null } as never,
      evidenceGuard: guard,
      usage,
    });
    expect(decision.status).toBe('FALLBACK');
    expect(decision.report).toMatchObject({
      error_code: 'GUARD_CONCLUSION_UNSUPPORTED',
      evidence_guard: { removed: [{ index: 0, code: 'GUARD_PAST_INCIDENT_ONLY' }] },
    });
    // A fallback shows no model text: not the withdrawn conclusion, not the removed statement.
    expect(JSON.stringify(decision.report)).not.toContain('支付渠道被停用');
  });

  it('publishes the rest without the removed finding, and the past runs apart from the citations', () => {
    const draft = draftOf('payment-gateway 超时', [item('FINDING', ['k1']), item('FINDING', ['l1'])]);
    const seenBefore = [
      { run_id: 'run-1', occurred_at: '2026-11-02T06:00:00.000Z', rating: 'CORRECT' as const, tool_call_ids: ['k1'] },
    ];
    const decision = releaseDiagnosis({
      execution: { draft, progress, stopReason: null, collectionStopReason: null } as never,
      evidenceGuard: verifyDraftEvidence(draft, progress, PAST),
      usage,
      seenBefore,
    });
    expect(decision.status).toBe('PUBLISHED');
    expect(decision.report).toMatchObject({
      kind: 'DIAGNOSIS',
      draft: { conclusion: 'payment-gateway 超时', analysis: [draft.analysis[1]] },
      citations: [{ tool_call_id: 'l1', tool_name: 'query_logs', empty: false }],
      evidence_guard: { removed: [{ index: 0, code: 'GUARD_PAST_INCIDENT_ONLY' }] },
      seen_before: seenBefore,
    });
    // The outcome keeps the agent's whole Draft for the audit.
    expect(decision.outcome.draft).toEqual(draft);
  });

  it('removes a FINDING whose only usable support is a past incident, also when it cites a check judged NO_GAIN', () => {
    const judged: ProgressSnapshot = {
      ...progress,
      checks: [check('k1', 'lookup_knowledge'), { ...check('l1', 'query_logs'), evaluation: 'NO_GAIN' }],
    };
    const draft = draftOf(null, [item('FINDING', ['k1', 'l1']), item('HYPOTHESIS', ['k1'])]);
    const result = verifyDraftEvidence(draft, judged, PAST);
    expect(result).toMatchObject({ ok: true, removed: [{ index: 0, code: 'GUARD_PAST_INCIDENT_ONLY' }] });
    if (!result.ok) throw new Error('expected a verified Draft');
    expect(result.draft?.analysis).toEqual([draft.analysis[1]]);
  });

  it('withdraws a conclusion whose finding rests on a past incident and a NO_GAIN check: FALLBACK', () => {
    const judged: ProgressSnapshot = {
      ...progress,
      checks: [check('k1', 'lookup_knowledge'), { ...check('l1', 'query_logs'), evaluation: 'NO_GAIN' }],
    };
    const draft = draftOf('和上次一样', [item('FINDING', ['l1', 'k1'])]);
    expect(verifyDraftEvidence(draft, judged, PAST)).toStrictEqual({
      ok: false,
      code: 'GUARD_CONCLUSION_UNSUPPORTED',
      analysisIndex: null,
      removed: [{ index: 0, code: 'GUARD_PAST_INCIDENT_ONLY' }],
    });
  });

  it('keeps a FINDING that rests on today’s usable check beside the past incident and a NO_GAIN check', () => {
    const judged: ProgressSnapshot = {
      ...progress,
      checks: [...progress.checks, { ...check('l3', 'query_logs'), evaluation: 'NO_GAIN' }],
    };
    const draft = draftOf('x', [item('FINDING', ['k1', 'l3', 'l1'])]);
    expect(verifyDraftEvidence(draft, judged, PAST)).not.toHaveProperty('removed');
    expect(verifyDraftEvidence(draft, judged, PAST)).toMatchObject({ ok: true });
  });

  it('changes nothing without past incidents', () => {
    const draft = draftOf('x', [item('FINDING', ['k1'])]);
    expect(verifyDraftEvidence(draft, progress, { incidents: new Map(), memoryOnlyLookups: new Set() })).toEqual(
      verifyDraftEvidence(draft, progress),
    );
    expect(verifyDraftEvidence(draft, progress)).toMatchObject({ ok: true });
  });
});
