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
});

describe('judgeVerdictsJsonSchema', () => {
  it('states the verdicts as a strict JSON Schema object with the analysis and the conclusion', () => {
    expect(judgeVerdictsJsonSchema()).toMatchObject({
      type: 'object',
      required: ['analysis', 'conclusion'],
      additionalProperties: false,
    });
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
