/**
 * A Diagnose invocation that fails after it claimed a QUEUED run leaves the run RUNNING forever.
 * `findPreviousRun` (continueSession) runs after the claim and outside the try/finally, so a transient DynamoDB error
 * there (a) escapes as DiagnosisServiceError with the run RUNNING, (b) every workflow retry then answers
 * DiagnosisRunConflictError (RunInProgress), (c) nobody ever re-invokes the runId, so RUN_ABANDONED is never reached,
 * and (d) the cancel-flag poller started just before is never stopped: it keeps reading the table forever in a warm
 * container.
 */
import { cancelled, emptyRunUsage, executeDiagnosisRun } from '@diagnosis/core';
import { createMemoryStores } from '@diagnosis/core/store';
import { describe, expect, it } from 'vitest';
import { createFakeEvidence } from '../../../support/fake-evidence.ts';
import { noConclusionDraft } from '../../../support/run-fixtures.ts';
import { scriptedModel, textRound } from '../../../support/scripted-model.ts';

const emptyUsage = emptyRunUsage;
const request = {
  runId: 'rt-stuck',
  sessionId: 's',
  enterpriseId: 'E1001',
  query: 'E1001 的订单从 14:05 开始失败，为什么？',
  continueSession: true,
};

describe('a failure after the claim', () => {
  it('never leaves the run RUNNING forever, and stops its cancel poller', async () => {
    const store = createMemoryStores();
    await store.queueRun(request); // POST /diagnoses
    let polls = 0;
    const isCancelRequested = store.isCancelRequested.bind(store);
    store.isCancelRequested = async (runId) => {
      polls += 1;
      return isCancelRequested(runId);
    };
    let failPrevious = true;
    const findPreviousRun = store.findPreviousRun.bind(store);
    store.findPreviousRun = async (e, s) => {
      if (failPrevious)
        throw Object.assign(new Error('Throughput exceeds the current capacity'), {
          name: 'ProvisionedThroughputExceededException',
        });
      return findPreviousRun(e, s);
    };
    const deps = {
      model: scriptedModel([textRound(JSON.stringify(noConclusionDraft()))]),
      evidence: createFakeEvidence().evidence,
      createStore: () => store,
      flushReserveMs: 100,
      limits: { finalRoundReserveMs: 100 },
      cancelPollMs: 10,
    };
    const first = await executeDiagnosisRun({ ...request, remainingMs: 60_000 }, deps).catch((e: Error) => e);
    // The failure after the claim is the run's: it ends FAILED (its code, not the exception) instead of escaping.
    expect(first).toMatchObject({ status: 'FAILED', report: { error_code: 'INTERNAL' } });

    // The poller must stop with the invocation.
    const before = polls;
    await new Promise((r) => setTimeout(r, 200));
    const leakedPolls = polls - before;

    // The workflow retries (DiagnosisServiceError, twice): the store has recovered by now.
    failPrevious = false;
    const retry = await executeDiagnosisRun({ ...request, remainingMs: 60_000 }, deps).catch((e: Error) => e);
    // A cancel does not end it either.
    await store.requestCancel(request.runId, cancelled(emptyUsage()).outcome);
    const stored = await store.getRun(request.runId);

    expect({ leakedPolls, retry: (retry as Error).name ?? 'result', status: stored?.status }).toEqual({
      leakedPolls: 0,
      retry: expect.not.stringMatching(/RunConflict/),
      status: expect.not.stringMatching(/RUNNING|QUEUED/),
    });
  });
});
