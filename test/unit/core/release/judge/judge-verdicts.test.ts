import { judgeVerdictsSchema, parseJudgeVerdicts } from '@diagnosis/core';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import {
  judgeVerdictsJsonSchema,
  MAX_VERDICT_REASON_CHARS,
} from '../../../../../packages/core/src/release/judge/judge-verdicts.ts';
import { supportedDraft } from '../../../../support/run-fixtures.ts';

describe('parseJudgeVerdicts', () => {
  const draft = supportedDraft(['c1']);

  it.each([
    ['text that is not JSON', 'SUPPORTED'],
    ['a value the schema refuses', JSON.stringify({ analysis: [], conclusion: null, extra: 1 })],
    ['a verdict missing for an item', JSON.stringify({ analysis: [], conclusion: ['SUPPORTED', 'r'] })],
    [
      'the keyed form of a verdict',
      JSON.stringify({
        analysis: [{ index: 0, verdict: 'SUPPORTED', reason: 'r' }],
        conclusion: { verdict: 'SUPPORTED', reason: 'r' },
        recommendations: [{ index: 0, verdict: 'SUPPORTED', reason: 'r' }],
        action_plan: [{ index: 0, verdict: 'SUPPORTED', reason: 'r' }],
      }),
    ],
  ])('answers exactly { ok: false } for %s', (_label, text) => {
    expect(parseJudgeVerdicts(text, draft)).toEqual({ ok: false });
  });

  const complete = {
    analysis: [['SUPPORTED', '日志显示连接池耗尽']],
    conclusion: ['SUPPORTED', '由第 0 条推出'],
    recommendations: [['UNCLEAR', '证据中没有流量数据']],
    action_plan: [['UNSUPPORTED', '证据中没有发布记录']],
  };

  it('reads a positional verdict on every claim as the report’s verdicts, each with the index of its claim', () => {
    expect(parseJudgeVerdicts(JSON.stringify(complete), draft)).toEqual({
      ok: true,
      verdicts: {
        analysis: [{ index: 0, verdict: 'SUPPORTED', reason: '日志显示连接池耗尽' }],
        conclusion: { verdict: 'SUPPORTED', reason: '由第 0 条推出' },
        recommendations: [{ index: 0, verdict: 'UNCLEAR', reason: '证据中没有流量数据' }],
        action_plan: [{ index: 0, verdict: 'UNSUPPORTED', reason: '证据中没有发布记录' }],
      },
    });
  });

  it('gives each verdict the index of its place in the list', () => {
    const two = { ...draft, analysis: [...draft.analysis, ...draft.analysis] };
    const text = JSON.stringify({
      ...complete,
      analysis: [
        ['SUPPORTED', 'a'],
        ['UNCLEAR', 'b'],
      ],
    });
    const parsed = parseJudgeVerdicts(text, two);
    expect(parsed.ok && parsed.verdicts.analysis).toEqual([
      { index: 0, verdict: 'SUPPORTED', reason: 'a' },
      { index: 1, verdict: 'UNCLEAR', reason: 'b' },
    ]);
  });

  it.each([
    ['an analysis item', { analysis: [] }],
    ['a recommendation', { recommendations: [] }],
    ['an action-plan step', { action_plan: [] }],
    ['a recommendation, its list left out', { recommendations: undefined }],
    ['an action-plan step, named twice instead', { action_plan: [complete.action_plan[0], complete.action_plan[0]] }],
    ['the conclusion', { conclusion: null }],
  ])('answers exactly { ok: false } when only the verdict on %s is missing', (_label, change) => {
    expect(parseJudgeVerdicts(JSON.stringify({ ...complete, ...change }), draft)).toEqual({ ok: false });
  });

  it.each([
    ['a verdict with a third entry', { analysis: [['SUPPORTED', 'r', 0]] }],
    ['a verdict without its reason', { analysis: [['SUPPORTED']] }],
    ['an empty reason', { analysis: [['SUPPORTED', '']] }],
    ['an unknown verdict', { analysis: [['TRUE', 'r']] }],
    ['a conclusion verdict for a Draft without one', {}],
  ])('answers exactly { ok: false } for %s', (label, change) => {
    const target = label.startsWith('a conclusion') ? { ...draft, conclusion: null } : draft;
    expect(parseJudgeVerdicts(JSON.stringify({ ...complete, ...change }), target)).toEqual({ ok: false });
  });

  it('reads a reason of exactly the bound and refuses one a character longer', () => {
    const at = (reason: string) => JSON.stringify({ ...complete, conclusion: ['SUPPORTED', reason] });
    expect(parseJudgeVerdicts(at('因'.repeat(MAX_VERDICT_REASON_CHARS)), draft).ok).toBe(true);
    expect(parseJudgeVerdicts(at('因'.repeat(MAX_VERDICT_REASON_CHARS + 1)), draft)).toEqual({ ok: false });
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

  it('bounds each list by the Draft’s: at most 10 analysis verdicts, 8 of each kind of advice', () => {
    const schema = judgeVerdictsJsonSchema() as { properties: Record<string, { maxItems: number }> };
    expect(schema.properties.analysis?.maxItems).toBe(10);
    expect(schema.properties.recommendations?.maxItems).toBe(8);
    expect(schema.properties.action_plan?.maxItems).toBe(8);
  });
});

describe('judgeVerdictsSchema', () => {
  it('refuses a reason of more than one line, saying "one line" at its path', () => {
    for (const reason of ['a\nb', 'a\rb']) {
      const result = v.safeParse(judgeVerdictsSchema, { analysis: [], conclusion: ['SUPPORTED', reason] });
      expect(result.success).toBe(false);
      expect(result.issues?.map((issue) => [v.getDotPath(issue), issue.message])).toEqual([
        ['conclusion.1', 'one line'],
      ]);
    }
  });
});
