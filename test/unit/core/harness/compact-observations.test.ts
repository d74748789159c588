import { verifyExecutionEvidence } from '@diagnosis/core';
import { describe, expect, it } from 'vitest';
import {
  COMPACT_OBSERVATIONS_AT_BYTES,
  COMPACTED_OBSERVATION_NOTE,
} from '../../../../packages/core/src/harness/compact-observations.ts';
import { diagnose } from '../../../support/diagnose.ts';
import { envelope, LOGS_INPUT, supportedDraft } from '../../../support/run-fixtures.ts';
import { observationsIn, textRound, toolRound } from '../../../support/scripted-model.ts';

/** 20 distinct ERROR lines of 400 characters: the projection keeps 16 of them, an observation at the 8 KB bound. */
const bigLogs = () => {
  let call = 0;
  return () => {
    call += 1;
    return {
      status: 'OK' as const,
      data: {
        matched: 20,
        lines: Array.from({ length: 20 }, (_, index) => ({
          timestamp: `2026-11-30T14:${String(call).padStart(2, '0')}:${String(index).padStart(2, '0')}+08:00`,
          level: 'ERROR',
          service: 'order-service',
          message: `pool exhausted call ${call} line ${index} `.padEnd(400, 'x'),
        })),
      },
    };
  };
};

const ids = ['call-1', 'call-2', 'call-3', 'call-4', 'call-5', 'call-6'];
const script = (citing: string[]) => [
  ...ids.map((id, index) =>
    toolRound([
      {
        id,
        name: 'query_logs',
        input: envelope(
          { ...LOGS_INPUT, keyword: `k${index}` },
          index === 0 ? undefined : { tool_call_id: ids[index - 1] ?? '', evaluation: 'GAINED' },
        ),
      },
    ]),
  ),
  textRound(JSON.stringify(supportedDraft(citing))),
];

describe('createObservationCompactor — through runDiagnosis', () => {
  it('compacts every judged observation but the newest once the full ones pass the bound, and keeps them compacted', async () => {
    const { model, outcome } = await diagnose(script(['call-1', 'call-6']), {
      handlers: { query_logs: bigLogs() },
      run: { limits: { maxToolCalls: 6, maxModelCalls: 8, maxTotalTokens: 1_000_000 } },
    });
    expect(outcome.ok && outcome.result.stopReason).toBe('TOOL_CALL_BUDGET');
    const rounds = model.doGenerateCalls.map((call) => observationsIn(call.prompt));
    const shapes = rounds.map((observations) =>
      observations.map((observation) => (observation.compacted === true ? 'stub' : 'full')),
    );
    // Full observations pass 24 KB at the fourth: all but the newest are compacted at once, and stay so.
    expect(shapes).toEqual([
      [],
      ['full'],
      ['full', 'full'],
      ['full', 'full', 'full'],
      ['stub', 'stub', 'stub', 'full'],
      ['stub', 'stub', 'stub', 'full', 'full'],
      ['stub', 'stub', 'stub', 'full', 'full', 'full'],
    ]);
    expect(COMPACT_OBSERVATIONS_AT_BYTES).toBe(24 * 1024);
    expect(rounds[4]?.[0]).toEqual({
      tool_call_id: 'call-1',
      evidence_status: 'OK',
      compacted: true,
      rows_seen: 16,
      matched: 20,
      message: COMPACTED_OBSERVATION_NOTE,
    });
    // Between compactions every request continues the one before: rounds 6 and 7 start with round 5's prompt.
    const calls = model.doGenerateCalls;
    for (const index of [5, 6]) {
      const previous = calls[index - 1]?.prompt ?? [];
      expect(JSON.stringify(calls[index]?.prompt.slice(0, previous.length))).toBe(JSON.stringify(previous));
    }
  });

  it('leaves a compacted observation citable: the EvidenceGuard accepts a Draft citing it', async () => {
    const { outcome } = await diagnose(script(['call-1', 'call-2']), {
      handlers: { query_logs: bigLogs() },
      run: { limits: { maxToolCalls: 6, maxModelCalls: 8, maxTotalTokens: 1_000_000 } },
    });
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.result.draft?.analysis[0]?.tool_call_ids).toEqual(['call-1', 'call-2']);
    expect(verifyExecutionEvidence(outcome.result)).toMatchObject({ ok: true });
  });

  it('never compacts a run whose observations stay small', async () => {
    const { model } = await diagnose(script(['call-1']), {
      run: { limits: { maxToolCalls: 6, maxModelCalls: 8, maxTotalTokens: 1_000_000 } },
    });
    const observations = model.doGenerateCalls.flatMap((call) => observationsIn(call.prompt));
    expect(observations.length).toBeGreaterThan(0);
    expect(observations.some((observation) => observation.compacted === true)).toBe(false);
  });
});
