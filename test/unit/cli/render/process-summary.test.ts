import type { ProcessScorecard } from '@diagnosis/core';
import { describe, expect, it } from 'vitest';
import { describeProcessScorecard, processCell } from '../../../../packages/cli/src/render/process-summary.ts';

const card: ProcessScorecard = {
  version: 1,
  rounds: 3,
  judgeCalls: 1,
  toolCalls: {
    total: 5,
    executed: 3,
    evidence: 2,
    empty: 1,
    error: 0,
    refused: 2,
    refusedByCode: { DUPLICATE_CALL: 1, INVALID_INPUT: 1 },
    stopped: 0,
    redundant: 1,
    noGain: 1,
    unproductive: 2,
  },
  answeredWithoutTools: false,
  guards: { draftItems: 4, removedItems: 1, removedShare: 0.25 },
  citationsPerFinding: 1.5,
  tokens: { input: 9_000, output: 900, reasoning: 100, cachedInput: 0, total: 9_900, estimatedRounds: 0 },
  budget: {
    modelCalls: { used: 3, allowed: 8 },
    toolCalls: { used: 3, allowed: 6 },
    tokens: { used: 9_000, allowed: 64_000 },
    refusedCalls: { used: 2, allowed: 16 },
  },
  timeMs: { model: 12_340, judge: 2_000, tools: 450, span: 16_000, leftAtEnd: 100_000 },
};

describe('describeProcessScorecard', () => {
  it('says rounds, calls by outcome and refusal code, redundancy, the guards’ removals, time and budget', () => {
    expect(describeProcessScorecard(card)).toEqual([
      'process: 3 rounds, 1 judge call',
      '  tool calls 5: 3 executed (2 evidence, 1 empty, 0 error), 2 refused (DUPLICATE_CALL 1, INVALID_INPUT 1), 0 after stop',
      '  redundant 1 · NO_GAIN 1 · unproductive 2',
      '  guards removed 1 of 4 Draft items (25%) · citations per finding 1.5',
      '  time in model 12.3 s, judge 2.0 s, tools 0.5 s · budget 3/8 rounds, 3/6 tool calls, 9,000/64,000 tokens',
    ]);
  });

  it('flags a run that answered without any tool call, and a run without a Draft', () => {
    const lines = describeProcessScorecard({
      ...card,
      judgeCalls: 0,
      answeredWithoutTools: true,
      guards: { draftItems: null, removedItems: null, removedShare: null },
    });
    expect(lines[0]).toBe('process: 3 rounds, answered WITHOUT any tool call');
    expect(lines[3]).toMatch(/^ {2}guards removed — \(no Draft\)/);
    expect(processCell(null)).toBe('—');
    expect(processCell(card)).toBe('3x 2ref 1dup');
  });
});
