import type { RunLimits, RunUsage } from '@diagnosis/core';
import { completionAttributes, newRunItem, recordOf, runOf, stepItems } from '@diagnosis/core/store';
import { describe, expect, it } from 'vitest';
import { failedOutcome, STORE_T0, stepEvent } from '../../../../support/audit-events.ts';

// NOTE: typed `Required<…>` on purpose: a field added to RunUsage or RunLimits fails the type check here until it is
// listed, and then these tests fail if the item schemas do not keep it (valibot drops keys a schema does not name).
const usage: Required<RunUsage> = {
  modelCalls: 1,
  inputTokens: 2,
  outputTokens: 3,
  totalTokens: 4,
  cachedInputTokens: 8,
  toolCalls: 5,
  inputBytes: 6,
  outputBytes: 7,
  estimatedTokenRounds: 9,
};
const limits: Required<RunLimits> = {
  maxModelCalls: 11,
  maxTotalTokens: 12,
  maxToolCalls: 13,
  maxQueryBytes: 14,
  maxPreviousTurnBytes: 15,
  maxInputBytes: 16,
  maxDraftBytes: 17,
  finalRoundReserveMs: 18,
  noGainStopStreak: 19,
  modelRequestTimeoutMs: 20,
  maxToolCallsPerRound: 21,
  maxRejectedToolCalls: 22,
};
const outcome = { ...failedOutcome(), usage, limits, deadlineAt: STORE_T0 + 60_000 };

describe('completionAttributes', () => {
  it('keeps every RunUsage and RunLimits field when a run completes', () => {
    const attributes = completionAttributes(outcome, STORE_T0);

    expect(attributes.usage).toEqual(usage);
    expect(attributes.limits).toEqual(limits);
  });
});

describe('runOf', () => {
  it('reads every RunUsage and RunLimits field back from a completed run item', () => {
    const start = { runId: 'run-1', sessionId: 'session-1', enterpriseId: 'E1001', query: 'q', continueSession: false };
    const item = { ...newRunItem(start, STORE_T0, 90), ...completionAttributes(outcome, STORE_T0 + 1_000) };

    const run = runOf(item);

    expect(run.usage).toEqual(usage);
    expect(run.limits).toEqual(limits);
  });
});

describe('runOf, for runs stored by earlier versions', () => {
  it('reads back limits stored before the per-request model time limit existed, without it', () => {
    const start = { runId: 'run-1', sessionId: 'session-1', enterpriseId: 'E1001', query: 'q', continueSession: false };
    const { modelRequestTimeoutMs: _absent, ...olderLimits } = limits;
    const item = {
      ...newRunItem(start, STORE_T0, 90),
      ...completionAttributes(outcome, STORE_T0 + 1_000),
      limits: olderLimits,
    };

    expect(runOf(item).limits).toEqual(olderLimits);
  });

  it('reads back limits stored before the tool-call flood limits existed, without them', () => {
    const start = { runId: 'run-1', sessionId: 'session-1', enterpriseId: 'E1001', query: 'q', continueSession: false };
    const { maxToolCallsPerRound: _perRound, maxRejectedToolCalls: _rejected, ...olderLimits } = limits;
    const item = {
      ...newRunItem(start, STORE_T0, 90),
      ...completionAttributes(outcome, STORE_T0 + 1_000),
      limits: olderLimits,
    };

    expect(runOf(item).limits).toEqual(olderLimits);
  });
});

describe('the model failure of a run', () => {
  const start = { runId: 'run-1', sessionId: 'session-1', enterpriseId: 'E1001', query: 'q', continueSession: false };
  const modelFailure = {
    kind: 'CONNECTION',
    httpStatus: null,
    errorClass: 'APICallError',
    networkCode: 'ECONNREFUSED',
  };

  it('is stored in snake case with the completion and read back', () => {
    const attributes = completionAttributes({ ...outcome, modelFailure } as typeof outcome, STORE_T0 + 1_000);
    expect(attributes.model_failure).toEqual({
      kind: 'CONNECTION',
      http_status: null,
      error_class: 'APICallError',
      network_code: 'ECONNREFUSED',
    });
    expect(runOf({ ...newRunItem(start, STORE_T0, 90), ...attributes }).modelFailure).toEqual(modelFailure);
  });

  it('reads back as null from a run stored before it was recorded', () => {
    const { model_failure: _absent, ...older } = completionAttributes(outcome, STORE_T0 + 1_000);
    expect(runOf({ ...newRunItem(start, STORE_T0, 90), ...older }).modelFailure).toBeNull();
  });

  it('refuses a model failure that holds text instead of identifiers', () => {
    const leaky = { ...modelFailure, errorClass: 'connect ECONNREFUSED 10.0.0.1:443' };
    expect(() => completionAttributes({ ...outcome, modelFailure: leaky } as typeof outcome, STORE_T0)).toThrow(
      /fails its schema/,
    );
  });
});

describe('the collection stop reason on the run item', () => {
  const start = { runId: 'run-1', sessionId: 'session-1', enterpriseId: 'E1001', query: 'q', continueSession: false };

  it('is stored and read back beside the stop reason', () => {
    const ignored = {
      ...outcome,
      stopReason: 'STOP_IGNORED' as const,
      collectionStopReason: 'TOOL_CALL_BUDGET' as const,
    };
    const item = { ...newRunItem(start, STORE_T0, 90), ...completionAttributes(ignored, STORE_T0 + 1_000) };

    expect(item.collection_stop_reason).toBe('TOOL_CALL_BUDGET');
    expect(runOf(item)).toMatchObject({ stopReason: 'STOP_IGNORED', collectionStopReason: 'TOOL_CALL_BUDGET' });
  });

  it('reads back as null from a run item stored before it existed', () => {
    const { collection_stop_reason: _absent, ...old } = {
      ...newRunItem(start, STORE_T0, 90),
      ...completionAttributes(outcome, STORE_T0 + 1_000),
    };

    expect(runOf(old).collectionStopReason).toBeNull();
  });
});

describe('the estimated-usage flag on the step item', () => {
  it('is stored and read back when a round’s tokens are the harness’s estimate', () => {
    const [step] = stepItems(stepEvent('run-1', 1, { usageEstimated: true }), STORE_T0, 90);

    expect(step.usage_estimated).toBe(true);
    expect(recordOf(step)).toMatchObject({ entity: 'agent_step', usageEstimated: true });
  });

  it('reads back as false from a step item stored before it existed', () => {
    const [{ usage_estimated: _absent, ...old }] = stepItems(stepEvent('run-1', 1), STORE_T0, 90);

    expect(recordOf(old as typeof old & { pk: string; sk: string })).toMatchObject({ usageEstimated: false });
  });
});
