import { describe, expect, it } from 'vitest';
import { projectEvidence } from '../../../../packages/core/src/tools/evidence-projection.ts';

describe('projectEvidence of past-incident marks', () => {
  const hit = { doc_id: 'd', title: 't', snippet: 's', score: 1 };
  it.each([
    ['a partial mark', { ...hit, source: 'past_incident', run_id: 'r1' }],
    [
      'another source',
      { ...hit, source: 'runbook', run_id: 'r1', occurred_at: '2026-11-02T06:00:00.000Z', rating: 'CORRECT' },
    ],
    [
      'a WRONG rating',
      { ...hit, source: 'past_incident', run_id: 'r1', occurred_at: '2026-11-02T06:00:00.000Z', rating: 'WRONG' },
    ],
    [
      'a run id with a separator',
      { ...hit, source: 'past_incident', run_id: 'r#1', occurred_at: '2026-11-02T06:00:00.000Z', rating: 'CORRECT' },
    ],
  ])('refuses the whole result for %s', (_case, forged) => {
    expect(projectEvidence('lookup_knowledge', { hits: [forged] })).toEqual({ ok: false });
  });
});
