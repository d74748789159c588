import { verifyDraftEvidence } from '@diagnosis/core';
import { describe, expect, it } from 'vitest';
import { diagnose } from '../../../support/diagnose.ts';
import { draftAnswer, envelope, KNOWLEDGE_INPUT, LOGS_INPUT, supportedDraft } from '../../../support/run-fixtures.ts';
import { observationsIn, textRound, toolRound } from '../../../support/scripted-model.ts';

/** The model's Draft citing `refs` (numbers, or ids as strings) in its one FINDING. */
const citing = (refs: (number | string)[]) => {
  const answer = JSON.parse(draftAnswer(supportedDraft(['placeholder']))) as { analysis: { refs: unknown[] }[] };
  for (const item of answer.analysis) item.refs = refs;
  return textRound(JSON.stringify(answer));
};

/** Two executed calls (a lookup, then logs) and the Draft citing `refs`. */
const twoCallsCiting = (refs: (number | string)[]) => [
  toolRound([{ id: 'call-1', name: 'lookup_knowledge', input: envelope(KNOWLEDGE_INPUT) }]),
  toolRound([
    { id: 'call-2', name: 'query_logs', input: envelope(LOGS_INPUT, { tool_call_id: 'call-1', evaluation: 'GAINED' }) },
  ]),
  citing(refs),
];

async function guarded(script: Parameters<typeof diagnose>[0]) {
  const { outcome, model } = await diagnose(script);
  if (!outcome.ok || outcome.result.draft === null) throw new Error('the run wrote no Draft');
  const { draft, progress } = outcome.result;
  return { draft, guard: verifyDraftEvidence(draft, progress), model };
}

describe('runDiagnosis — citations by the run’s own call numbers', () => {
  it('shows each observation’s number after its id and maps the Draft’s refs to this run’s call ids', async () => {
    const { draft, guard, model } = await guarded(twoCallsCiting([2, 1]));

    const seen = observationsIn(model.doGenerateCalls.at(-1)?.prompt ?? []);
    expect(seen.map((observation) => Object.keys(observation).slice(0, 2))).toEqual([
      ['tool_call_id', 'ref'],
      ['tool_call_id', 'ref'],
    ]);
    expect(seen.map((observation) => [observation.tool_call_id, observation.ref])).toEqual([
      ['call-1', 1],
      ['call-2', 2],
    ]);
    expect(draft.analysis[0]?.tool_call_ids).toEqual(['call-2', 'call-1']);
    expect(guard).toMatchObject({ ok: true, citations: [{ tool_call_id: 'call-2' }, { tool_call_id: 'call-1' }] });
  });

  it('keeps a string as the id it is: a call’s own id verifies as before', async () => {
    const { draft, guard } = await guarded(twoCallsCiting(['call-2']));
    expect(draft.analysis[0]?.tool_call_ids).toEqual(['call-2']);
    expect(guard.ok).toBe(true);
  });

  const unknownId = async () => (await guarded(twoCallsCiting(['call-never-made']))).guard;

  it.each([
    ['past the run’s last call', 3],
    ['zero', 0],
    ['negative', -1],
    ['far past any call', 1_000_000],
  ])('fails the citation check exactly as an unknown id does for a ref %s', async (_label, ref) => {
    const { draft, guard } = await guarded(twoCallsCiting([1, ref]));
    expect(draft.analysis[0]?.tool_call_ids).toEqual(['call-1', `#${ref}`]);
    expect(guard).toEqual({ ok: false, code: 'GUARD_UNKNOWN_CITATION', analysisIndex: 0 });
    expect(guard).toEqual(await unknownId());
  });

  it('fails the citation check for a ref valid in another run and not in this one', async () => {
    const other = await guarded(twoCallsCiting([2]));
    expect(other.guard.ok).toBe(true);

    const { draft, guard } = await guarded([
      toolRound([{ id: 'call-1', name: 'query_logs', input: envelope(LOGS_INPUT) }]),
      citing([2]),
    ]);
    expect(draft.analysis[0]?.tool_call_ids).toEqual(['#2']);
    expect(guard).toEqual({ ok: false, code: 'GUARD_UNKNOWN_CITATION', analysisIndex: 0 });
  });

  it('maps the ref of a call the boundary refused to that call, which no citation may rest on', async () => {
    const { draft, guard, model } = await guarded([
      toolRound([{ id: 'call-1', name: 'query_logs', input: envelope(LOGS_INPUT) }]),
      // NOTE: refused: the pending result is not evaluated (MISSING_PREVIOUS_OBSERVATION).
      toolRound([{ id: 'call-2', name: 'lookup_knowledge', input: envelope(KNOWLEDGE_INPUT) }]),
      citing([2]),
    ]);
    const seen = observationsIn(model.doGenerateCalls.at(-1)?.prompt ?? []);
    expect(seen.map((observation) => [observation.ref, observation.evidence_status])).toEqual([
      [1, 'OK'],
      [2, 'REJECTED'],
    ]);
    expect(draft.analysis[0]?.tool_call_ids).toEqual(['call-2']);
    expect(guard).toEqual({ ok: false, code: 'GUARD_UNKNOWN_CITATION', analysisIndex: 0 });
  });

  it('refuses a Draft that cites by the former tool_call_ids key or by a fraction as DRAFT_SCHEMA', async () => {
    for (const last of [textRound(JSON.stringify(supportedDraft(['call-1']))), citing([1.5])]) {
      const { outcome } = await diagnose([
        toolRound([{ id: 'call-1', name: 'query_logs', input: envelope(LOGS_INPUT) }]),
        last,
      ]);
      expect(outcome.ok).toBe(false);
      expect(!outcome.ok && (outcome.error as { code?: string }).code).toBe('DRAFT_SCHEMA');
    }
  });
});
