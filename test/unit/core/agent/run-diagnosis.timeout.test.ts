import type { LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import { DiagnosisExecutionError } from '@diagnosis/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { diagnose } from '../../../support/diagnose.ts';
import { noConclusionDraft } from '../../../support/run-fixtures.ts';
import { textRound } from '../../../support/scripted-model.ts';

/** A provider call that never settles and never looks at its abort signal. */
const neverAnswers = () => new Promise<LanguageModelV4GenerateResult>(() => undefined);

/** A run on the real clock: the harness's own timers decide, no test sleeps. */
function realTimeRun(deadlineInMs: number, limits: Record<string, number>) {
  return { now: Date.now, deadlineAt: Date.now() + deadlineInMs, limits: { finalRoundReserveMs: 0, ...limits } };
}

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => void unhandled.push(reason);
beforeEach(() => {
  unhandled.length = 0;
  process.on('unhandledRejection', onUnhandled);
});
afterEach(() => {
  process.off('unhandledRejection', onUnhandled);
});

/** Lets every pending callback of the event loop run once (a late answer, its rejection handlers). */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('runDiagnosis — a time limit per model request', () => {
  it('fails with MODEL_TIMEOUT long before the deadline when the provider never answers and ignores its signal', async () => {
    const run = realTimeRun(5_000, { modelRequestTimeoutMs: 300 });
    const { outcome, model, audit } = await diagnose([neverAnswers], { run });
    const endedAt = Date.now();

    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error).toBeInstanceOf(DiagnosisExecutionError);
    expect(outcome.error).toMatchObject({
      code: 'MODEL_TIMEOUT',
      modelFailure: { kind: 'TIMEOUT', httpStatus: null, errorClass: 'ModelRequestTimeout', networkCode: null },
    });
    expect(endedAt).toBeLessThan(run.deadlineAt);
    expect(model.doGenerateCalls).toHaveLength(1);
    expect(audit.steps).toEqual([]);
  });

  it('returns at the deadline with DEADLINE when the provider ignores its abort signal', async () => {
    const run = realTimeRun(600, { modelRequestTimeoutMs: 60_000 });
    const { outcome } = await diagnose([neverAnswers], { run });

    expect(outcome.ok && outcome.result).toMatchObject({ draft: null, stopReason: 'DEADLINE' });
  }, 10_000);

  it('returns at the deadline when the audit hook never settles', async () => {
    const run = realTimeRun(600, { modelRequestTimeoutMs: 60_000 });
    const { outcome } = await diagnose([textRound(JSON.stringify(noConclusionDraft()))], {
      run,
      audit: { onModelStep: () => new Promise(() => undefined), onToolInvocation: async () => undefined },
    });

    expect(outcome.ok && outcome.result).toMatchObject({ draft: null, stopReason: 'DEADLINE' });
  }, 10_000);

  it('ignores an answer that arrives after the timeout: nothing audited, nothing counted, nothing unhandled', async () => {
    let answer: (result: LanguageModelV4GenerateResult) => void = () => undefined;
    let fail: (error: Error) => void = () => undefined;
    const late = () =>
      new Promise<LanguageModelV4GenerateResult>((resolve) => {
        answer = resolve;
      });
    const lateFailure = () =>
      new Promise<LanguageModelV4GenerateResult>((_resolve, reject) => {
        fail = reject;
      });

    const first = await diagnose([late], { run: realTimeRun(5_000, { modelRequestTimeoutMs: 200 }) });
    const second = await diagnose([lateFailure], { run: realTimeRun(5_000, { modelRequestTimeoutMs: 200 }) });
    answer(textRound(JSON.stringify(noConclusionDraft()), { inputTokens: 500 }));
    fail(new Error('socket hang up, long after the run'));
    await nextTurn();

    expect(first.outcome).toMatchObject({ ok: false, error: { code: 'MODEL_TIMEOUT' } });
    expect(second.outcome).toMatchObject({ ok: false, error: { code: 'MODEL_TIMEOUT' } });
    expect(first.audit.steps).toEqual([]);
    expect(first.run.usage()).toMatchObject({ modelCalls: 1, totalTokens: 0 });
    expect(unhandled).toEqual([]);
  });
});
