import { judgeVerdictsSchema, parseJudgeVerdicts } from '@diagnosis/core';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { judgeVerdictsJsonSchema } from '../../../../../packages/core/src/release/judge/judge-verdicts.ts';
import { supportedDraft } from '../../../../support/run-fixtures.ts';

describe('parseJudgeVerdicts', () => {
  const draft = supportedDraft(['c1']);

  it.each([
    ['text that is not JSON', 'SUPPORTED'],
    ['a value the schema refuses', JSON.stringify({ analysis: [], conclusion: null, extra: 1 })],
    [
      'a verdict missing for an item',
      JSON.stringify({ analysis: [], conclusion: { verdict: 'SUPPORTED', reason: 'r' } }),
    ],
  ])('answers exactly { ok: false } for %s', (_label, text) => {
    expect(parseJudgeVerdicts(text, draft)).toEqual({ ok: false });
  });

  const verdict = (index: number) => ({ index, verdict: 'SUPPORTED', reason: 'r' });
  const complete = {
    analysis: [verdict(0)],
    conclusion: { verdict: 'SUPPORTED', reason: 'r' },
    recommendations: [verdict(0)],
    action_plan: [verdict(0)],
  };

  it('reads a verdict on every claim, each list in the Draft’s order', () => {
    expect(parseJudgeVerdicts(JSON.stringify(complete), draft)).toEqual({
      ok: true,
      verdicts: {
        analysis: [verdict(0)],
        conclusion: { verdict: 'SUPPORTED', reason: 'r' },
        recommendations: [verdict(0)],
        action_plan: [verdict(0)],
      },
    });
  });

  it.each([
    ['an analysis item', { analysis: [] }],
    ['a recommendation', { recommendations: [] }],
    ['an action-plan step', { action_plan: [] }],
    ['a recommendation, its list left out', { recommendations: undefined }],
    ['an action-plan step, named twice instead', { action_plan: [verdict(0), verdict(0)] }],
  ])('answers exactly { ok: false } when only the verdict on %s is missing', (_label, change) => {
    expect(parseJudgeVerdicts(JSON.stringify({ ...complete, ...change }), draft)).toEqual({ ok: false });
  });
});

describe('judgeVerdictsJsonSchema', () => {
  it('states the verdicts as a strict JSON Schema object with the analysis and the conclusion', () => {
    expect(judgeVerdictsJsonSchema()).toMatchObject({
      type: 'object',
      required: ['analysis', 'conclusion'],
      additionalProperties: false,
    });
  });

  it('bounds each list’s indexes by its length: 0–9 for the analysis, 0–7 for the advice', () => {
    const schema = judgeVerdictsJsonSchema() as {
      properties: Record<string, { items: { properties: { index: { minimum: number; maximum: number } } } }>;
    };
    expect(schema.properties.analysis?.items.properties.index).toMatchObject({ minimum: 0, maximum: 9 });
    expect(schema.properties.recommendations?.items.properties.index).toMatchObject({ minimum: 0, maximum: 7 });
    expect(schema.properties.action_plan?.items.properties.index).toMatchObject({ minimum: 0, maximum: 7 });
  });
});

describe('judgeVerdictsSchema', () => {
  it('refuses a reason of more than one line, saying "one line" at its path', () => {
    for (const reason of ['a\nb', 'a\rb']) {
      const result = v.safeParse(judgeVerdictsSchema, { analysis: [], conclusion: { verdict: 'SUPPORTED', reason } });
      expect(result.success).toBe(false);
      expect(result.issues?.map((issue) => [v.getDotPath(issue), issue.message])).toEqual([
        ['conclusion.reason', 'one line'],
      ]);
    }
  });
});
