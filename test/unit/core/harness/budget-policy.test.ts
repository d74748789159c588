import {
  createCollectionState,
  FINAL_ROUND_TOKEN_RESERVE,
  finalRoundReserveStartsAt,
  inFinalRoundReserve,
  modelRequestTimeoutMs,
  outputTokenCap,
  overRoundToolCallLimit,
  overranTokens,
  reachedRejectedCallLimit,
  refuseRound,
  saturated,
  softStopAfterToolCall,
  softStopBeforeRound,
  tooLittleTimeForARound,
} from '@diagnosis/core/harness';
import { describe, expect, it } from 'vitest';
import { T0, testRun } from '../../../support/run-fixtures.ts';

const limits = { maxModelCalls: 4, maxTotalTokens: 10_000, maxToolCalls: 3, finalRoundReserveMs: 20_000 };

describe('refuseRound', () => {
  it('lets a round through while every budget has room', () => {
    expect(refuseRound(testRun({ limits }))).toBeNull();
  });

  it.each([
    ['DEADLINE', { now: () => T0 + 60_000 }, {}],
    ['MODEL_CALL_BUDGET', {}, { modelCalls: 4 }],
    ['TOKEN_BUDGET', {}, { totalTokens: 10_000 }],
  ] as const)('refuses with %s', (reason, init, usage) => {
    const run = testRun({ limits, ...init });
    Object.assign(run.ledger.usage, usage);
    expect(refuseRound(run)).toBe(reason);
  });

  it('names the deadline first when several budgets are spent', () => {
    const run = testRun({ limits, now: () => T0 + 61_000 });
    Object.assign(run.ledger.usage, { modelCalls: 4, totalTokens: 10_000 });
    expect(refuseRound(run)).toBe('DEADLINE');
  });
});

describe('outputTokenCap and overranTokens', () => {
  it('caps the output at what is left of the token budget, at least one token', () => {
    const run = testRun({ limits });
    run.ledger.usage.totalTokens = 9_000;
    expect(outputTokenCap(run, undefined)).toBe(1_000);
    expect(outputTokenCap(run, 400)).toBe(400);
    expect(outputTokenCap(run, 5_000)).toBe(1_000);
    run.ledger.usage.totalTokens = 12_000;
    expect(outputTokenCap(run, 5_000)).toBe(1);
    expect(overranTokens(run)).toBe(true);
    run.ledger.usage.totalTokens = 10_000;
    expect(overranTokens(run)).toBe(false);
  });
});

describe('softStopBeforeRound', () => {
  it('keeps collection open with room for another round and the final one', () => {
    expect(softStopBeforeRound(testRun({ limits }), createCollectionState())).toBeNull();
  });

  it('stops for MODEL_CALL_BUDGET when only the final round is left', () => {
    const run = testRun({ limits });
    run.ledger.usage.modelCalls = 3;
    expect(softStopBeforeRound(run, createCollectionState())).toBe('MODEL_CALL_BUDGET');
  });

  it('stops for TOKEN_BUDGET when the next round’s estimate leaves no room for the final one', () => {
    const run = testRun({ limits });
    const collection = { ...createCollectionState(), lastRoundTokens: 3_000, observationBytesSinceRound: 2_000 };
    run.ledger.usage.totalTokens = 10_000 - 3_000 - 1_000 - FINAL_ROUND_TOKEN_RESERVE;
    expect(softStopBeforeRound(run, collection)).toBeNull();
    run.ledger.usage.totalTokens += 1;
    expect(softStopBeforeRound(run, collection)).toBe('TOKEN_BUDGET');
  });

  it('stops for DEADLINE once the final round’s reserve has begun', () => {
    const run = testRun({ limits, now: () => T0 + 40_001 });
    expect(inFinalRoundReserve(run)).toBe(true);
    expect(softStopBeforeRound(run, createCollectionState())).toBe('DEADLINE');
    expect(finalRoundReserveStartsAt(run)).toBe(T0 + 40_000);
  });
});

describe('tool-call and saturation stops', () => {
  it('stops after the call that uses the last of the tool-call budget', () => {
    const run = testRun({ limits });
    run.ledger.usage.toolCalls = 2;
    expect(softStopAfterToolCall(run)).toBeNull();
    run.ledger.usage.toolCalls = 3;
    expect(softStopAfterToolCall(run)).toBe('TOOL_CALL_BUDGET');
  });

  it('counts the run as saturated at its NO_GAIN streak limit', () => {
    const run = testRun({ limits: { noGainStopStreak: 2 } });
    expect(saturated(run, 1)).toBe(false);
    expect(saturated(run, 2)).toBe(true);
  });
});

describe('tooLittleTimeForARound', () => {
  it('needs more time than the final round’s reserve, and some time even with no reserve', () => {
    expect(tooLittleTimeForARound({ finalRoundReserveMs: 20_000 }, 19_999)).toBe(true);
    expect(tooLittleTimeForARound({ finalRoundReserveMs: 20_000 }, 20_000)).toBe(false);
    expect(tooLittleTimeForARound({ finalRoundReserveMs: 0 }, 0)).toBe(true);
    expect(tooLittleTimeForARound({ finalRoundReserveMs: 0 }, 1)).toBe(false);
  });
});

describe('modelRequestTimeoutMs', () => {
  it('gives a provider call the per-request limit while the deadline is further away', () => {
    expect(modelRequestTimeoutMs(testRun({ limits: { modelRequestTimeoutMs: 30_000 } }))).toBe(30_000);
  });

  it('leaves the call to the deadline when the deadline comes first or at the same moment', () => {
    expect(modelRequestTimeoutMs(testRun({ limits: { modelRequestTimeoutMs: 90_000 } }))).toBeNull();
    expect(modelRequestTimeoutMs(testRun({ limits: { modelRequestTimeoutMs: 60_000 } }))).toBeNull();
    expect(
      modelRequestTimeoutMs(testRun({ now: () => T0 + 45_000, limits: { modelRequestTimeoutMs: 30_000 } })),
    ).toBeNull();
  });
});

describe('overRoundToolCallLimit and reachedRejectedCallLimit', () => {
  it('lets a round ask for up to maxToolCallsPerRound tool calls and no more', () => {
    const run = testRun({ limits: { maxToolCallsPerRound: 16 } });
    expect(overRoundToolCallLimit(run, 16)).toBe(false);
    expect(overRoundToolCallLimit(run, 17)).toBe(true);
    expect(overRoundToolCallLimit(run, 200)).toBe(true);
  });

  it('says the run’s refusals are used up at maxRejectedToolCalls, not before', () => {
    const run = testRun({ limits: { maxRejectedToolCalls: 16 } });
    expect(reachedRejectedCallLimit(run, 15)).toBe(false);
    expect(reachedRejectedCallLimit(run, 16)).toBe(true);
  });
});
