import { compareReports, parseComparableReport, parseScorecardText, renderComparison } from '@diagnosis/eval';
import { summarize } from '@diagnosis/eval/summary';
import { describe, expect, it } from 'vitest';

const card = (redundant: number, refused = 0) => ({
  version: 1,
  rounds: 4,
  judgeCalls: 1,
  toolCalls: {
    total: 4 + refused,
    executed: 4,
    evidence: 4,
    empty: 0,
    error: 0,
    refused,
    refusedByCode: {},
    stopped: 0,
    redundant,
    noGain: 0,
    unproductive: 0,
  },
  answeredWithoutTools: false,
  guards: { draftItems: 4, removedItems: 1, removedShare: 0.25 },
  citationsPerFinding: 1.5,
  tokens: { input: 1, output: 1, reasoning: 0, cachedInput: 0, total: 2, estimatedRounds: 0 },
  budget: {
    modelCalls: { used: 4, allowed: 8 },
    toolCalls: { used: 4, allowed: 6 },
    tokens: { used: 2, allowed: 64_000 },
    refusedCalls: { used: refused, allowed: 16 },
  },
  timeMs: { model: 1_000, judge: 100, tools: 200, span: 1_500, leftAtEnd: 1 },
});

const row = (id: string, verdict: string | null, extra: Record<string, unknown> = {}) => ({
  id,
  category: 'logs',
  status: verdict === null ? 'ERROR' : 'RAN',
  verdict,
  passed: verdict === 'CORRECT',
  process: verdict === null ? null : card(0),
  captured: null,
  ...extra,
});
const report = (scenarios: unknown[]) => {
  const parsed = parseComparableReport({ version: 1, mode: 'offline', startedAt: 'x', scenarios });
  if (!parsed.ok) throw new Error(parsed.problems.join('; '));
  return parsed.report;
};

describe('compareReports', () => {
  it('names a worse verdict, a lost pass and a captured scenario that now regresses; not an unchanged one', () => {
    const before = report([
      row('a', 'CORRECT'),
      row('b', 'INCOMPLETE'),
      row('c', 'CORRECT', { captured: { regressed: false } }),
      row('d', 'CORRECT'),
      row('e', 'ABSTAINED'),
    ]);
    const after = report([
      row('a', 'CONFIDENTLY_WRONG'),
      row('b', 'INCOMPLETE', { process: card(2, 1) }),
      row('c', 'CORRECT', { captured: { regressed: true }, passed: true }),
      row('d', null),
      row('e', 'CORRECT'),
    ]);
    const comparison = compareReports(before, after);
    expect(comparison.scenarios.map((item) => [item.id, item.regressed, item.improved])).toEqual([
      ['a', true, false],
      ['b', false, false],
      ['c', true, false],
      ['d', true, false],
      ['e', false, true],
    ]);
    expect(comparison.scenarios[1]?.processChanges).toEqual(['refused 0 → 1', 'redundant 0 → 2']);
    expect(comparison.regressions).toBe(3);
    const text = renderComparison(comparison);
    expect(text).toMatch(/^REGRESSED {2}a {2}CORRECT → CONFIDENTLY_WRONG$/m);
    expect(text).toMatch(/^changed {4}b {2}INCOMPLETE → INCOMPLETE {2}\(refused 0 → 1, redundant 0 → 2\)$/m);
    expect(text).toMatch(/5 scenarios: 3 regressed, 1 improved; mean points/);
  });

  it('refuses a file that is not a scorecard, naming the field', () => {
    expect(parseComparableReport({ version: 1, mode: 'offline', scenarios: 'x' })).toMatchObject({ ok: false });
    expect(parseComparableReport([])).toMatchObject({ ok: false });
  });
});

describe('summarize (process figures)', () => {
  it('averages the stored process scorecards over all runs and per category', () => {
    const runs = [
      { ...row('a', 'CORRECT'), process: card(1) },
      { ...row('b', 'CORRECT'), category: 'mysql', process: card(3, 2) },
      { ...row('c', null), category: 'mysql' },
    ].map((entry) => ({
      title: entry.id,
      expectedOutcome: 'DIAGNOSIS',
      expectedVerdict: 'CORRECT',
      deliberatelyWrong: false,
      semanticGuard: 'off',
      score: null,
      observation: null,
      probes: [],
      usage: { modelCalls: 0, toolCalls: 0, inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, totalTokens: 0 },
      measured: null,
      costUsd: 0,
      latencyMs: 0,
      runId: null,
      error: null,
      notes: [],
      ...entry,
    }));
    const summary = summarize(runs as never);
    expect(summary.process).toMatchObject({ runs: 2, redundantPerRun: 2, refusedPerRun: 1, guardRemovedShare: 0.25 });
    expect(summary.byCategory.mysql).toMatchObject({
      scenarios: 2,
      ran: 1,
      correct: 1,
      process: { redundantPerRun: 3 },
    });
    expect(summary.byCategory.logs?.process?.redundantPerRun).toBe(1);
    expect(summary.captured).toEqual({ scenarios: 0, regressed: 0 });
  });
});

describe('parseScorecardText', () => {
  it('reads a scorecard written by `npm run eval -- --json > file`, skipping only npm’s banner', () => {
    const json = JSON.stringify({ scenarios: [] }, null, 2);
    expect(parseScorecardText(`\n> diagnosis-agent@0.1.0 eval\n> diagnosis eval --json\n\n${json}\n`)).toEqual({
      scenarios: [],
    });
    expect(parseScorecardText(json)).toEqual({ scenarios: [] });
  });

  it('refuses any other text around the JSON', () => {
    expect(parseScorecardText(`npm warn something\n${JSON.stringify({ scenarios: [] })}`)).toBeNull();
    expect(parseScorecardText(`${JSON.stringify({ scenarios: [] })}\ntrailing`)).toBeNull();
    expect(parseScorecardText('')).toBeNull();
  });
});
