import {
  inFinalRoundReserve,
  type JudgeBudget,
  judgeOverranTokens,
  judgePromptFits,
  judgeTimeBudgetMs,
  judgeVerdictTooLarge,
  maxRounds,
} from '@diagnosis/core/harness';
import { describe, expect, it } from 'vitest';
import { T0, testRun } from '../../../support/run-fixtures.ts';

// Each limit at its exact edge: one unit either side decides between "allowed" and "refused", so a `<` written as
// `<=` (or the reverse) fails here.

const judge: JudgeBudget = {
  maxTotalTokens: 1_000,
  maxOutputTokens: 200,
  maxTimeMs: 30_000,
  timeSharePercent: 50,
  minTimeMs: 5_000,
  maxVerdictBytes: 4_096,
};

describe('inFinalRoundReserve', () => {
  it('is still collecting when exactly the reserve is left, and in the reserve one millisecond later', () => {
    const limits = { finalRoundReserveMs: 20_000 };
    expect(inFinalRoundReserve(testRun({ limits, now: () => T0 + 40_000 }))).toBe(false);
    expect(inFinalRoundReserve(testRun({ limits, now: () => T0 + 40_001 }))).toBe(true);
  });
});

describe('maxRounds', () => {
  it('is the run’s model-call limit', () => {
    expect(maxRounds(testRun({ limits: { maxModelCalls: 7 } }))).toBe(7);
  });
});

describe('judgeTimeBudgetMs', () => {
  it('gives the judge exactly its minimum time, and nothing one millisecond below it', () => {
    // 10,000 ms left, 50 %: a 5,000 ms share, exactly minTimeMs.
    expect(judgeTimeBudgetMs(testRun({ deadlineAt: T0 + 10_000 }), judge)).toBe(5_000);
    expect(judgeTimeBudgetMs(testRun({ deadlineAt: T0 + 9_999 }), judge)).toBeNull();
  });

  it('caps the share at maxTimeMs', () => {
    expect(judgeTimeBudgetMs(testRun({ deadlineAt: T0 + 600_000 }), judge)).toBe(30_000);
    expect(judgeTimeBudgetMs(testRun({ deadlineAt: T0 + 50_000 }), judge)).toBe(25_000);
  });
});

describe('judgePromptFits', () => {
  it('fits a prompt whose estimate plus the output cap is exactly the token budget, not one token more', () => {
    // 1,600 bytes estimate as 800 tokens (2 bytes a token); 800 + 200 = 1,000.
    expect(judgePromptFits(judge, 1_600)).toBe(true);
    expect(judgePromptFits(judge, 1_601)).toBe(false);
  });
});

describe('judgeOverranTokens', () => {
  it('accepts a call that used exactly the budget and voids one that used a token more', () => {
    expect(judgeOverranTokens(judge, 1_000)).toBe(false);
    expect(judgeOverranTokens(judge, 1_001)).toBe(true);
  });
});

describe('judgeVerdictTooLarge', () => {
  it('reads verdicts of exactly maxVerdictBytes and refuses one byte more', () => {
    expect(judgeVerdictTooLarge(judge, 4_096)).toBe(false);
    expect(judgeVerdictTooLarge(judge, 4_097)).toBe(true);
  });
});
