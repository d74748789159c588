import { type DiagnosisDraft, type ProgressSnapshot, verifyDraftEvidence } from '@diagnosis/core';
import { describe, expect, it } from 'vitest';
import { citationsOf } from '../../../../packages/core/src/release/evidence-guard.ts';
import { supportedDraft } from '../../../support/run-fixtures.ts';

// The EvidenceGuard's refusals, each with the exact code and item, on the mixed cases a model produces: one real
// citation beside an invented one, a conclusion resting on anything but a supported finding, a NO_EVIDENCE item that
// also cites data.

type Item = DiagnosisDraft['analysis'][number];

const check = (toolCallId: string, empty = false) => ({
  toolCallId,
  toolName: 'query_logs' as const,
  status: 'READY' as const,
  empty,
  evaluation: null,
});
const progress = (...checks: ReturnType<typeof check>[]): ProgressSnapshot => ({
  modelCalls: 2,
  toolCalls: checks.length,
  rejectedToolCalls: 0,
  totalTokens: 500,
  checks,
});
const item = (type: Item['type'], evidence_status: Item['evidence_status'], ids: string[]): Item => ({
  type,
  statement: '订单服务日志显示连接池耗尽',
  evidence_status,
  tool_call_ids: ids,
  scope: evidence_status === 'NO_EVIDENCE' ? 'payment-gateway 14:00–15:00' : null,
});
const draft = (conclusion: string | null, ...analysis: Item[]): DiagnosisDraft => ({
  ...supportedDraft(['c1']),
  conclusion,
  analysis,
});
const world = progress(check('c1'), check('c2'), check('e1', true), check('e2', true));

describe('verifyDraftEvidence', () => {
  it('refuses a supported finding citing one real check and one invented tool call id', () => {
    const result = verifyDraftEvidence(
      draft('结论', item('FINDING', 'SUPPORTED', ['c1']), item('FINDING', 'SUPPORTED', ['c2', 'call_invented'])),
      world,
    );
    expect(result).toEqual({ ok: false, code: 'GUARD_UNKNOWN_CITATION', analysisIndex: 1 });
  });

  it('refuses an invented id cited before a real one', () => {
    const result = verifyDraftEvidence(draft('结论', item('FINDING', 'SUPPORTED', ['call_invented', 'c1'])), world);
    expect(result).toEqual({ ok: false, code: 'GUARD_UNKNOWN_CITATION', analysisIndex: 0 });
  });

  it('refuses a conclusion resting only on a supported hypothesis', () => {
    const result = verifyDraftEvidence(draft('结论', item('HYPOTHESIS', 'SUPPORTED', ['c1'])), world);
    expect(result).toEqual({ ok: false, code: 'GUARD_CONCLUSION_UNSUPPORTED', analysisIndex: null });
  });

  it('refuses a conclusion resting only on a finding without evidence (even one the schema let through)', () => {
    const result = verifyDraftEvidence(draft('结论', item('FINDING', 'NO_EVIDENCE', ['e1'])), world);
    expect(result).toEqual({ ok: false, code: 'GUARD_CONCLUSION_UNSUPPORTED', analysisIndex: null });
  });

  it('refuses a conclusion resting only on a negative observation', () => {
    const result = verifyDraftEvidence(draft('结论', item('NEGATIVE_OBSERVATION', 'NO_EVIDENCE', ['e1'])), world);
    expect(result).toEqual({ ok: false, code: 'GUARD_CONCLUSION_UNSUPPORTED', analysisIndex: null });
  });

  it('accepts a Draft without a conclusion whose only item is a supported hypothesis', () => {
    const result = verifyDraftEvidence(draft(null, item('HYPOTHESIS', 'SUPPORTED', ['c2'])), world);
    expect(result).toEqual({ ok: true, citations: [{ tool_call_id: 'c2', tool_name: 'query_logs', empty: false }] });
  });

  it('refuses a NO_EVIDENCE item citing an empty check and a check that returned data', () => {
    const result = verifyDraftEvidence(
      draft(null, item('NEGATIVE_OBSERVATION', 'NO_EVIDENCE', ['e1', 'c1'])),
      progress(check('c1'), check('e1', true)),
    );
    expect(result).toEqual({ ok: false, code: 'GUARD_NO_EVIDENCE_NOT_EMPTY', analysisIndex: 0 });
  });

  it('accepts a NO_EVIDENCE item citing only empty checks', () => {
    const result = verifyDraftEvidence(draft(null, item('NEGATIVE_OBSERVATION', 'NO_EVIDENCE', ['e2', 'e1'])), world);
    expect(result).toEqual({
      ok: true,
      citations: [
        { tool_call_id: 'e2', tool_name: 'query_logs', empty: true },
        { tool_call_id: 'e1', tool_name: 'query_logs', empty: true },
      ],
    });
  });
});

describe('citationsOf', () => {
  it('leaves out ids that are not among the verified citations', () => {
    const verified = [{ tool_call_id: 'c1', tool_name: 'query_logs' as const, empty: false }];
    const trimmed = draft('结论', item('FINDING', 'SUPPORTED', ['c9', 'c1', 'c9']));
    expect(citationsOf(trimmed, verified)).toEqual(verified);
    expect(citationsOf(draft(null, item('FINDING', 'SUPPORTED', ['c9'])), verified)).toEqual([]);
  });
});
