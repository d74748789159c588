import { type DiagnosisDraft, type ProgressSnapshot, verifyDraftEvidence } from '@diagnosis/core';
import { describe, expect, it } from 'vitest';

const check = (toolCallId: string, toolName: 'lookup_knowledge' | 'query_logs', empty = false) => ({
  toolCallId,
  toolName,
  status: 'READY' as const,
  empty,
  evaluation: null,
});
/** k1: a lookup that returned a runbook beside the past incident R1; k2: one that returned the past incident R2 alone. */
const progress: ProgressSnapshot = {
  modelCalls: 4,
  toolCalls: 3,
  rejectedToolCalls: 0,
  totalTokens: 900,
  checks: [check('k1', 'lookup_knowledge'), check('k2', 'lookup_knowledge'), check('l1', 'query_logs')],
};
const PAST = {
  incidents: new Map([
    ['past-incident:R1', 'k1'],
    ['past-incident:R2', 'k2'],
  ]),
  memoryOnlyLookups: new Set(['k2']),
};
type Item = DiagnosisDraft['analysis'][number];
const item = (type: Item['type'], ids: string[]): Item => ({
  type,
  statement: `${type} ${ids.join(',')}`,
  evidence_status: 'SUPPORTED',
  tool_call_ids: ids,
  scope: null,
});
const draftOf = (conclusion: string | null, analysis: Item[]): DiagnosisDraft => ({
  conclusion,
  analysis,
  action_plan: [],
  recommendations: [],
  limitations: { checked_scope: ['知识库'], missing_info: conclusion === null ? ['原因'] : [] },
});

describe('verifyDraftEvidence with past incidents cited by their own ids', () => {
  it('keeps a FINDING that cites a lookup whose runbook came beside a past incident: the id stands for the runbook', () => {
    const draft = draftOf('手册记载的限流', [item('FINDING', ['k1'])]);
    expect(verifyDraftEvidence(draft, progress, PAST)).toStrictEqual({
      ok: true,
      citations: [{ tool_call_id: 'k1', tool_name: 'lookup_knowledge', empty: false }],
    });
  });

  it('removes a FINDING that cites the past incident by its own id, and withdraws the conclusion it carried', () => {
    const draft = draftOf('和上次一样', [item('FINDING', ['past-incident:R1'])]);
    expect(verifyDraftEvidence(draft, progress, PAST)).toStrictEqual({
      ok: false,
      code: 'GUARD_CONCLUSION_UNSUPPORTED',
      analysisIndex: null,
      removed: [{ index: 0, code: 'GUARD_PAST_INCIDENT_ONLY' }],
    });
  });

  it('removes a FINDING that cites a past incident and the lookup that returned it alone: neither is about today', () => {
    const draft = draftOf(null, [item('FINDING', ['past-incident:R2', 'k2'])]);
    expect(verifyDraftEvidence(draft, progress, PAST)).toMatchObject({
      ok: true,
      removed: [{ index: 0, code: 'GUARD_PAST_INCIDENT_ONLY' }],
    });
  });

  it('leaves a FINDING that cites a past incident beside its lookup’s runbook to the judge: it rests on the runbook', () => {
    const draft = draftOf('x', [item('FINDING', ['past-incident:R1', 'k1'])]);
    expect(verifyDraftEvidence(draft, progress, PAST)).toMatchObject({ ok: true });
    expect(verifyDraftEvidence(draft, progress, PAST)).not.toHaveProperty('removed');
  });

  it('keeps a FINDING that cites today’s logs beside the past incident, and a HYPOTHESIS on the past incident', () => {
    const draft = draftOf('x', [item('FINDING', ['l1', 'past-incident:R1']), item('HYPOTHESIS', ['past-incident:R2'])]);
    expect(verifyDraftEvidence(draft, progress, PAST)).toStrictEqual({
      ok: true,
      citations: [
        { tool_call_id: 'l1', tool_name: 'query_logs', empty: false },
        { tool_call_id: 'past-incident:R1', tool_name: 'lookup_knowledge', empty: false },
        { tool_call_id: 'past-incident:R2', tool_name: 'lookup_knowledge', empty: false },
      ],
    });
  });

  it('still counts a lookup that returned past incidents alone as past incidents', () => {
    const draft = draftOf(null, [item('FINDING', ['k2']), item('FINDING', ['k1'])]);
    expect(verifyDraftEvidence(draft, progress, PAST)).toMatchObject({
      ok: true,
      removed: [{ index: 0, code: 'GUARD_PAST_INCIDENT_ONLY' }],
    });
  });

  it('refuses a past incident that no lookup of this run returned, as any unknown citation', () => {
    const draft = draftOf(null, [item('HYPOTHESIS', ['past-incident:R9'])]);
    expect(verifyDraftEvidence(draft, progress, PAST)).toStrictEqual({
      ok: false,
      code: 'GUARD_UNKNOWN_CITATION',
      analysisIndex: 0,
    });
  });

  it('counts a check the model named like a past incident as that past incident: the doubt counts against the memory', () => {
    const named: ProgressSnapshot = {
      ...progress,
      checks: [...progress.checks, check('past-incident:R1', 'query_logs')],
    };
    const draft = draftOf(null, [item('FINDING', ['past-incident:R1'])]);
    expect(verifyDraftEvidence(draft, named, PAST)).toMatchObject({
      ok: true,
      removed: [{ index: 0, code: 'GUARD_PAST_INCIDENT_ONLY' }],
    });
  });

  it('judges a past incident by its lookup’s evaluation: one the model judged NO_GAIN supports no HYPOTHESIS', () => {
    const judged: ProgressSnapshot = {
      ...progress,
      checks: [{ ...check('k1', 'lookup_knowledge'), evaluation: 'NO_GAIN' }, check('l1', 'query_logs')],
    };
    const draft = draftOf(null, [item('HYPOTHESIS', ['past-incident:R1'])]);
    expect(verifyDraftEvidence(draft, judged, PAST)).toMatchObject({ ok: false, code: 'GUARD_CITES_ONLY_NO_GAIN' });
  });
});
