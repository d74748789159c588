import {
  type CheckEvaluation,
  DiagnosisAgentOutputError,
  type DiagnosisDraft,
  DiagnosisExecutionError,
  type ProgressSnapshot,
  releaseDiagnosis,
  verifyDraftEvidence,
} from '@diagnosis/core';
import { describe, expect, it } from 'vitest';
import { supportedDraft } from '../../../support/run-fixtures.ts';

const check = (
  toolCallId: string,
  options: { status?: 'READY' | 'ERROR'; empty?: boolean; evaluation?: CheckEvaluation } = {},
) => ({
  toolCallId,
  toolName: 'query_logs' as const,
  status: options.status ?? ('READY' as const),
  empty: options.empty ?? false,
  evaluation: options.evaluation ?? null,
});
const progress = (...checks: ReturnType<typeof check>[]): ProgressSnapshot => ({
  modelCalls: 2,
  toolCalls: checks.length,
  rejectedToolCalls: 0,
  totalTokens: 500,
  checks,
});
const usage = {
  modelCalls: 2,
  inputTokens: 400,
  outputTokens: 100,
  totalTokens: 500,
  cachedInputTokens: 0,
  toolCalls: 1,
  inputBytes: 50,
  outputBytes: 400,
  estimatedTokenRounds: 0,
};
const negative = (ids: string[]): DiagnosisDraft['analysis'][number] => ({
  type: 'NEGATIVE_OBSERVATION',
  statement: '该时间窗内没有 ERROR 日志',
  evidence_status: 'NO_EVIDENCE',
  tool_call_ids: ids,
  scope: 'payment-gateway 14:00–15:00',
});

describe('verifyDraftEvidence', () => {
  it('verifies a Draft whose citations are READY checks of the run, returning them once each in citation order', () => {
    const draft = {
      ...supportedDraft(['c2', 'c1']),
      analysis: [...supportedDraft(['c2', 'c1']).analysis, negative(['c3']), ...supportedDraft(['c1']).analysis],
    };
    expect(verifyDraftEvidence(draft, progress(check('c1'), check('c2'), check('c3', { empty: true })))).toEqual({
      ok: true,
      citations: [
        { tool_call_id: 'c2', tool_name: 'query_logs', empty: false },
        { tool_call_id: 'c1', tool_name: 'query_logs', empty: false },
        { tool_call_id: 'c3', tool_name: 'query_logs', empty: true },
      ],
    });
  });

  it.each([
    ['an id the run never saw', supportedDraft(['c9']), progress(check('c1')), 'GUARD_UNKNOWN_CITATION'],
    ['an ERROR check', supportedDraft(['c1']), progress(check('c1', { status: 'ERROR' })), 'GUARD_UNKNOWN_CITATION'],
    [
      'a SUPPORTED item citing only empty checks',
      supportedDraft(['c1']),
      progress(check('c1', { empty: true })),
      'GUARD_SUPPORTED_WITHOUT_EVIDENCE',
    ],
    [
      'a NO_EVIDENCE item citing a check with data',
      { ...supportedDraft(['c1']), analysis: [...supportedDraft(['c1']).analysis, negative(['c1'])] },
      progress(check('c1')),
      'GUARD_NO_EVIDENCE_NOT_EMPTY',
    ],
    [
      'a conclusion without a verified FINDING',
      { ...supportedDraft(['c1']), analysis: [{ ...negative(['c2']) }] },
      progress(check('c1'), check('c2', { empty: true })),
      'GUARD_CONCLUSION_UNSUPPORTED',
    ],
    [
      'a SUPPORTED item citing only checks the model judged NO_GAIN',
      supportedDraft(['c1', 'c2']),
      progress(check('c1', { evaluation: 'NO_GAIN' }), check('c2', { evaluation: 'NO_GAIN' })),
      'GUARD_CITES_ONLY_NO_GAIN',
    ],
    [
      'a SUPPORTED item whose only useful-looking check is empty, beside a NO_GAIN one',
      supportedDraft(['c1', 'c2']),
      progress(check('c1', { evaluation: 'NO_GAIN' }), check('c2', { empty: true })),
      'GUARD_CITES_ONLY_NO_GAIN',
    ],
  ])('refuses %s', (_label, draft, snapshot, code) => {
    expect(verifyDraftEvidence(draft as DiagnosisDraft, snapshot)).toMatchObject({ ok: false, code });
  });
});

describe('verifyDraftEvidence and the model’s own evaluations', () => {
  it.each([
    ['GAINED', 'GAINED'],
    ['PENDING (the last check: the Draft came next, so the model had no chance to evaluate it)', 'PENDING'],
  ] as const)('accepts a SUPPORTED item citing a check judged %s', (_label, evaluation) => {
    const snapshot = progress(check('c1', { evaluation: 'NO_GAIN' }), check('c2', { evaluation }));
    expect(verifyDraftEvidence(supportedDraft(['c1', 'c2']), snapshot)).toMatchObject({ ok: true });
  });

  it('does not publish a conclusion whose findings cite only NO_GAIN checks', () => {
    const draft = supportedDraft(['c1']);
    const decision = releaseDiagnosis({
      execution: { draft, progress: progress(check('c1', { evaluation: 'NO_GAIN' })), stopReason: null },
      usage,
    });
    expect(decision).toMatchObject({
      status: 'FALLBACK',
      outcome: { errorCode: 'GUARD_CITES_ONLY_NO_GAIN', publishedResult: null },
      report: { kind: 'FALLBACK', reason: expect.stringContaining('NO_GAIN') },
    });
  });
});

describe('releaseDiagnosis', () => {
  it('publishes a Draft that passes the guard, as a SUCCEEDED run', () => {
    const draft = supportedDraft(['c1']);
    const decision = releaseDiagnosis({
      execution: { draft, progress: progress(check('c1')), stopReason: null },
      usage,
    });
    expect(decision).toMatchObject({
      status: 'PUBLISHED',
      report: { kind: 'DIAGNOSIS', draft, citations: [{ tool_call_id: 'c1' }] },
      outcome: { status: 'SUCCEEDED', publishedResult: { draft }, errorCode: null },
    });
  });

  it('falls back with the guard code and no model text when the guard fails', () => {
    const draft = supportedDraft(['c9']);
    const decision = releaseDiagnosis({
      execution: { draft, progress: progress(check('c1')), stopReason: 'TOOL_CALL_BUDGET' },
      usage,
    });
    expect(decision).toMatchObject({
      status: 'FALLBACK',
      outcome: { status: 'FALLBACK', errorCode: 'GUARD_UNKNOWN_CITATION', publishedResult: null, draft },
    });
    expect(JSON.stringify(decision.report)).not.toContain(draft.conclusion as string);
    expect(decision.report).toMatchObject({ kind: 'FALLBACK', stop_reason: 'TOOL_CALL_BUDGET' });
  });

  it('falls back with the stop reason when a controlled stop left no Draft', () => {
    const decision = releaseDiagnosis({
      execution: { draft: null, progress: progress(), stopReason: 'STOP_IGNORED' },
      usage,
    });
    expect(decision).toMatchObject({
      status: 'FALLBACK',
      report: { stop_reason: 'STOP_IGNORED', limitations: { checked_scope: [] } },
    });
  });

  it('falls back when the Draft was invalid, keeping the bounded progress', () => {
    const decision = releaseDiagnosis({
      error: new DiagnosisAgentOutputError('DRAFT_NOT_JSON', progress(check('c1'))),
      usage,
    });
    expect(decision).toMatchObject({
      status: 'FALLBACK',
      outcome: { errorCode: 'DRAFT_NOT_JSON', progress: { checks: [{ toolCallId: 'c1' }] } },
    });
  });

  it.each([
    [new DiagnosisExecutionError('MODEL_FAILED'), 'MODEL_FAILED'],
    [new DiagnosisExecutionError('AUDIT_FAILED'), 'AUDIT_FAILED'],
    [new TypeError('x is undefined'), 'INTERNAL'],
  ])('fails without a published result on %s', (error, code) => {
    const decision = releaseDiagnosis({ error, usage });
    expect(decision).toMatchObject({
      status: 'FAILED',
      report: { kind: 'FAILED', error_code: code },
      outcome: { status: 'FAILED', publishedResult: null },
    });
    expect(JSON.stringify(decision)).not.toContain('is undefined');
  });
});
