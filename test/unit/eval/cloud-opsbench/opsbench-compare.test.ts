import { describe, expect, it } from 'vitest';
import {
  compareOpsbenchReports,
  isOpsbenchReport,
  parseOpsbenchReport,
  renderOpsbenchComparison,
} from '../../../../packages/eval/src/cloud-opsbench/opsbench-compare.ts';

const totals = (joint: number, perCase: number) => ({
  cases: 2,
  published: 2,
  evidence_recall: null,
  tokens: { per_case: perCase },
  cost_usd: 0.01,
  accuracy: { component: 1, fault: joint, joint },
});
const row = (key: string, joint: boolean) => ({
  case: key,
  status: 'RAN',
  release: { status: 'PUBLISHED' },
  evidence_recall: null,
  live: { joint },
  tokens: { total: 100 },
});
const report = (rows: ReturnType<typeof row>[], joint: number, perCase: number) => ({
  benchmark: 'cloud-opsbench',
  version: 1,
  mode: 'live',
  totals: totals(joint, perCase),
  cases: rows,
});

describe('compareOpsbenchReports', () => {
  it('names the cases whose joint score changed and the totals before → after', () => {
    const before = parseOpsbenchReport(report([row('a/b/1', true), row('a/b/2', false)], 0.5, 1000));
    const after = parseOpsbenchReport(report([row('a/b/1', false), row('a/b/2', true)], 0.5, 1200));
    if (!before.ok || !after.ok) throw new Error('parse');
    const comparison = compareOpsbenchReports(before.report, after.report);
    expect(comparison.cases).toEqual([
      { case: 'a/b/1', before: 'joint right', after: 'joint wrong', regressed: true, improved: false },
      { case: 'a/b/2', before: 'joint wrong', after: 'joint right', regressed: false, improved: true },
    ]);
    expect(comparison.regressions).toBe(1);
    expect(renderOpsbenchComparison(comparison)).toContain('tokens per case: 1,000 → 1,200');
    expect(renderOpsbenchComparison(comparison)).toContain('joint accuracy: 50.0% → 50.0%');
  });

  it('offline: a case that no longer publishes, or whose signature lines no longer reach the agent, regressed', () => {
    const offline = (status: string, found: number) => ({
      ...report([], 0, 1),
      mode: 'offline',
      totals: { ...totals(0, 1), accuracy: null },
      cases: [
        {
          case: 'a/b/1',
          status: 'REPLAYED',
          release: { status },
          evidence_recall: { signatures: { expert: 3, found, recall: found / 3 } },
          live: null,
          tokens: null,
        },
      ],
    });
    const parse = (value: unknown) => {
      const parsed = parseOpsbenchReport(value);
      if (!parsed.ok) throw new Error(parsed.problems.join());
      return parsed.report;
    };
    expect(compareOpsbenchReports(parse(offline('PUBLISHED', 3)), parse(offline('PUBLISHED', 2))).cases).toEqual([
      { case: 'a/b/1', before: 'PUBLISHED 3/3', after: 'PUBLISHED 2/3', regressed: true, improved: false },
    ]);
    expect(compareOpsbenchReports(parse(offline('PUBLISHED', 1)), parse(offline('FALLBACK', 3))).regressions).toBe(1);
  });

  it('tells a cloud-opsbench report from a scorecard, and says what is wrong with one that is not whole', () => {
    expect(isOpsbenchReport({ benchmark: 'cloud-opsbench' })).toBe(true);
    expect(isOpsbenchReport({ version: 1, scenarios: [] })).toBe(false);
    expect(parseOpsbenchReport({ benchmark: 'cloud-opsbench', version: 1, mode: 'live' })).toMatchObject({
      ok: false,
      problems: [expect.stringMatching(/^totals: /), expect.stringMatching(/^cases: /)],
    });
  });
});
