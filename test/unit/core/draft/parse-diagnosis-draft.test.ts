import { diagnosisDraftJsonSchema, parseDiagnosisDraft } from '@diagnosis/core';
import { describe, expect, it } from 'vitest';
import { draftAnswerJsonSchema } from '../../../../packages/core/src/draft/diagnosis-draft.ts';
import { draftAnswer, noConclusionDraft, supportedDraft } from '../../../support/run-fixtures.ts';

const valid = draftAnswer(supportedDraft(['call_00_lCIkdHRa7AKmCG3TlxXz1061', 'call-2']));

describe('parseDiagnosisDraft', () => {
  it('returns the Draft with its refs as tool call ids: a number as this run’s call of that number', () => {
    const text = valid.replace(
      '"refs":["call_00_lCIkdHRa7AKmCG3TlxXz1061","call-2"]',
      '"refs":[2,"past-incident:run-1",1]',
    );
    const result = parseDiagnosisDraft(text, undefined, ['call_a', 'call_b']);
    expect(result.ok && result.draft.analysis[0]).toEqual({
      type: 'FINDING',
      statement: '订单服务日志显示调用 payment-gateway 时连接池耗尽',
      evidence_status: 'SUPPORTED',
      tool_call_ids: ['call_b', 'past-incident:run-1', 'call_a'],
      scope: null,
    });
  });

  it('writes a ref that names no call of the run as #n, which no checked id can be', () => {
    const text = valid.replace('"refs":["call_00_lCIkdHRa7AKmCG3TlxXz1061","call-2"]', '"refs":[3,0,-2]');
    const result = parseDiagnosisDraft(text, undefined, ['call_a', 'call_b']);
    expect(result.ok && result.draft.analysis[0]?.tool_call_ids).toEqual(['#3', '#0', '#-2']);
  });

  it('returns the Draft with string citations exactly as written when the text is a valid object', () => {
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
    const text = draftAnswer(draft);
    expect(parseDiagnosisDraft(text, { maxDraftBytes: Buffer.byteLength(text) })).toMatchObject({ ok: true });
    expect(parseDiagnosisDraft(text, { maxDraftBytes: Buffer.byteLength(text) - 1 })).toMatchObject({
      ok: false,
      code: 'DRAFT_TOO_LARGE',
    });
  });

  type Answer = Omit<ReturnType<typeof supportedDraft>, 'analysis'> & {
    analysis: (Omit<ReturnType<typeof supportedDraft>['analysis'][number], 'tool_call_ids'> & { refs: unknown[] })[];
  };
  const base = () => JSON.parse(draftAnswer(supportedDraft(['c1']))) as Record<string, unknown> & Answer;

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
    ['no citation', (draft) => ({ ...draft, analysis: [{ ...draft.analysis[0], refs: [] }] }), 'analysis.0.refs'],
    [
      'seven citations',
      (draft) => ({ ...draft, analysis: [{ ...draft.analysis[0], refs: [1, 2, 3, 4, 5, 6, 7] }] }),
      'analysis.0.refs',
    ],
    [
      'a fractional ref',
      (draft) => ({ ...draft, analysis: [{ ...draft.analysis[0], refs: [1.5] }] }),
      'analysis.0.refs.0',
    ],
    [
      'the report’s tool_call_ids in place of refs',
      (draft) => {
        const { refs, ...item } = draft.analysis[0] ?? { refs: [] };
        return { ...draft, analysis: [{ ...item, tool_call_ids: refs }] };
      },
      'analysis.0',
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
      refs: [2],
      scope: 'payment-gateway ERROR 日志 14:00–15:00',
    });
    expect(parseDiagnosisDraft(JSON.stringify(draft)).ok).toBe(true);
  });
});

describe('draftAnswerJsonSchema', () => {
  it('gives the model refs, integers or strings, where the report’s Draft has tool_call_ids', () => {
    const item = (schema: object) =>
      (schema as { properties: { analysis: { items: { properties: Record<string, unknown> } } } }).properties.analysis
        .items.properties;
    expect(Object.keys(item(draftAnswerJsonSchema()))).toEqual([
      'type',
      'statement',
      'evidence_status',
      'refs',
      'scope',
    ]);
    expect(item(draftAnswerJsonSchema()).refs).toMatchObject({
      items: { anyOf: [{ type: 'integer' }, { type: 'string', minLength: 1, maxLength: 200 }] },
    });
    expect(Object.keys(item(diagnosisDraftJsonSchema()))).toContain('tool_call_ids');
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
