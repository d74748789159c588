import { diagnosisDraftJsonSchema, parseDiagnosisDraft } from '@diagnosis/core';
import { describe, expect, it } from 'vitest';
import { noConclusionDraft, supportedDraft } from '../../../support/run-fixtures.ts';

const valid = JSON.stringify(supportedDraft(['call_00_lCIkdHRa7AKmCG3TlxXz1061', 'call-2']));

describe('parseDiagnosisDraft', () => {
  it('returns the Draft with the tool call ids exactly as written when the text is a valid object', () => {
    const result = parseDiagnosisDraft(valid);
    expect(result).toMatchObject({ ok: true });
    expect(result.ok && result.draft.analysis[0]?.tool_call_ids).toEqual([
      'call_00_lCIkdHRa7AKmCG3TlxXz1061',
      'call-2',
    ]);
  });

  it('returns a frozen Draft', () => {
    const result = parseDiagnosisDraft(valid);
    expect(result.ok && Object.isFrozen(result.draft.analysis[0])).toBe(true);
  });

  it('accepts the whitespace JSON allows around the object', () => {
    expect(parseDiagnosisDraft(`\n  ${valid}\n\t`).ok).toBe(true);
  });

  it('accepts a no-conclusion Draft that names the missing information', () => {
    expect(parseDiagnosisDraft(JSON.stringify(noConclusionDraft())).ok).toBe(true);
  });

  it.each([
    ['blank', '', 'DRAFT_BLANK'],
    ['whitespace only', '  \n ', 'DRAFT_BLANK'],
    ['fenced', `\`\`\`json\n${valid}\n\`\`\``, 'DRAFT_NOT_JSON'],
    ['prefixed', `诊断结果如下：${valid}`, 'DRAFT_NOT_JSON'],
    ['suffixed', `${valid}\n以上。`, 'DRAFT_NOT_JSON'],
    ['truncated', valid.slice(0, -10), 'DRAFT_NOT_JSON'],
    ['two objects', `${valid}${valid}`, 'DRAFT_NOT_JSON'],
    ['an array', `[${valid}]`, 'DRAFT_SCHEMA'],
    ['a JSON string', JSON.stringify(valid), 'DRAFT_SCHEMA'],
    ['null', 'null', 'DRAFT_SCHEMA'],
  ])('refuses %s text', (_label, text, code) => {
    expect(parseDiagnosisDraft(text)).toMatchObject({ ok: false, code });
  });

  it('refuses text over maxDraftBytes counted in UTF-8', () => {
    const draft = supportedDraft(['c1']);
    draft.recommendations = ['建'.repeat(290)];
    const text = JSON.stringify(draft);
    expect(parseDiagnosisDraft(text, { maxDraftBytes: Buffer.byteLength(text) })).toMatchObject({ ok: true });
    expect(parseDiagnosisDraft(text, { maxDraftBytes: Buffer.byteLength(text) - 1 })).toMatchObject({
      ok: false,
      code: 'DRAFT_TOO_LARGE',
    });
  });

  const base = () =>
    structuredClone(supportedDraft(['c1'])) as Record<string, unknown> & ReturnType<typeof supportedDraft>;

  it.each<[string, (draft: ReturnType<typeof base>) => unknown, string]>([
    ['an extra top-level key', (draft) => ({ ...draft, confidence: 0.9 }), 'confidence'],
    [
      'an extra analysis key',
      (draft) => ({ ...draft, analysis: [{ ...draft.analysis[0], confidence: 1 }] }),
      'analysis.0',
    ],
    ['a missing limitations', ({ limitations: _omit, ...rest }) => rest, 'limitations'],
    [
      'an unknown type',
      (draft) => ({ ...draft, analysis: [{ ...draft.analysis[0], type: 'ROOT_CAUSE' }] }),
      'analysis.0.type',
    ],
    [
      'no tool call id',
      (draft) => ({ ...draft, analysis: [{ ...draft.analysis[0], tool_call_ids: [] }] }),
      'analysis.0.tool_call_ids',
    ],
    [
      'seven tool call ids',
      (draft) => ({
        ...draft,
        analysis: [{ ...draft.analysis[0], tool_call_ids: ['1', '2', '3', '4', '5', '6', '7'] }],
      }),
      'analysis.0.tool_call_ids',
    ],
    ['eleven analysis items', (draft) => ({ ...draft, analysis: Array(11).fill(draft.analysis[0]) }), 'analysis'],
    ['an empty conclusion', (draft) => ({ ...draft, conclusion: '' }), 'conclusion'],
    [
      'a statement over 1,000 characters',
      (draft) => ({ ...draft, analysis: [{ ...draft.analysis[0], statement: 's'.repeat(1_001) }] }),
      'analysis.0.statement',
    ],
    [
      'nine action steps',
      (draft) => ({ ...draft, action_plan: Array(9).fill({ step: 's', purpose: 'p' }) }),
      'action_plan',
    ],
    [
      'a recommendation over 300 characters',
      (draft) => ({ ...draft, recommendations: ['r'.repeat(301)] }),
      'recommendations.0',
    ],
  ])('refuses a Draft with %s as DRAFT_SCHEMA', (_label, mutate, path) => {
    const result = parseDiagnosisDraft(JSON.stringify(mutate(base())));
    expect(result).toMatchObject({ ok: false, code: 'DRAFT_SCHEMA' });
    expect(!result.ok && result.issues.some((issue) => issue.startsWith(path))).toBe(true);
  });

  it.each<[string, (draft: ReturnType<typeof base>) => unknown, string]>([
    [
      'NO_EVIDENCE on a FINDING',
      (draft) => ({
        ...draft,
        analysis: [draft.analysis[0], { ...draft.analysis[0], evidence_status: 'NO_EVIDENCE', scope: 'x' }],
      }),
      'analysis.1.evidence_status',
    ],
    [
      'NO_EVIDENCE without scope',
      (draft) => ({
        ...draft,
        analysis: [
          draft.analysis[0],
          { ...draft.analysis[0], type: 'NEGATIVE_OBSERVATION', evidence_status: 'NO_EVIDENCE', scope: null },
        ],
      }),
      'analysis.1.scope',
    ],
    [
      'a conclusion without a SUPPORTED FINDING',
      (draft) => ({ ...draft, analysis: [{ ...draft.analysis[0], type: 'HYPOTHESIS' }] }),
      'conclusion',
    ],
    [
      'no conclusion and no missing information',
      (draft) => ({ ...draft, conclusion: null, limitations: { checked_scope: [], missing_info: [] } }),
      'limitations.missing_info',
    ],
  ])('refuses a Draft that breaks the rule: %s', (_label, mutate, issue) => {
    expect(parseDiagnosisDraft(JSON.stringify(mutate(base())))).toMatchObject({
      ok: false,
      code: 'DRAFT_SCHEMA',
      issues: [issue],
    });
  });

  it('accepts a scoped NEGATIVE_OBSERVATION with NO_EVIDENCE', () => {
    const draft = base();
    draft.analysis.push({
      type: 'NEGATIVE_OBSERVATION',
      statement: 'payment-gateway 在 14:00–15:00 没有 ERROR 日志',
      evidence_status: 'NO_EVIDENCE',
      tool_call_ids: ['c2'],
      scope: 'payment-gateway ERROR 日志 14:00–15:00',
    });
    expect(parseDiagnosisDraft(JSON.stringify(draft)).ok).toBe(true);
  });
});

describe('diagnosisDraftJsonSchema', () => {
  it('describes a strict object with the five fields and a fresh copy on each call', () => {
    const schema = diagnosisDraftJsonSchema() as Record<string, unknown>;
    expect(schema).toMatchObject({
      type: 'object',
      additionalProperties: false,
      required: ['conclusion', 'analysis', 'action_plan', 'recommendations', 'limitations'],
    });
    (schema.properties as Record<string, unknown>).conclusion = 'mutated';
    expect((diagnosisDraftJsonSchema() as { properties: Record<string, unknown> }).properties.conclusion).not.toBe(
      'mutated',
    );
  });
});
