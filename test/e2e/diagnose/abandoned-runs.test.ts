/**
 * RUN_ABANDONED is decided from `createdAt`, which for the asynchronous API is the time the run was QUEUED,
 * not the time it was claimed. The workflow waits out DiagnosisTenantBusyError for ~17 minutes (DIAGNOSE_RETRIERS),
 * longer than the 16-minute staleness limit, so a run claimed after a long queue is "abandoned" from its first second:
 * any second invocation of the runId (a Lambda.SdkClientException/ServiceException retry of an invoke that actually
 * ran, the batch or a direct start of the same runId) closes the LIVE run as FAILED RUN_ABANDONED, and the live
 * invocation's completion then fails (RUN_NOT_RUNNING).
 */
import { executeDiagnosisRun } from '@diagnosis/core';
import { createMemoryStores } from '@diagnosis/core/store';
import { describe, expect, it } from 'vitest';
import { createFakeEvidence } from '../../support/fake-evidence.ts';
import { noConclusionDraft } from '../../support/run-fixtures.ts';
import { scriptedModel, textRound } from '../../support/scripted-model.ts';

const request = {
  runId: 'rt-old-queue',
  sessionId: 's',
  enterpriseId: 'E1001',
  query: 'E1001 的订单从 14:05 开始失败，为什么？',
  continueSession: false,
};

describe('a run claimed after a long queue', () => {
  it('is not closed as RUN_ABANDONED by a second invocation while it is still running', async () => {
    let offset = 0;
    const now = () => Date.now() + offset;
    const store = createMemoryStores({ now });
    await store.queueRun(request); // POST /diagnoses at t0
    offset = 17 * 60_000; // the tenant was busy: the workflow retried TenantBusy for ~17 minutes

    let release: () => void = () => undefined;
    const blocked = new Promise<void>((resolve) => {
      release = resolve;
    });
    const deps = (script: Parameters<typeof scriptedModel>[0]) => ({
      model: scriptedModel(script),
      evidence: createFakeEvidence().evidence,
      createStore: () => store,
      flushReserveMs: 100,
      limits: { finalRoundReserveMs: 100 },
      now,
    });
    const live = executeDiagnosisRun(
      { ...request, remainingMs: 60_000 },
      deps([
        async () => {
          await blocked;
          return textRound(JSON.stringify(noConclusionDraft()));
        },
      ]),
    ).catch((error: Error) => error);
    while ((await store.getRun(request.runId))?.status !== 'RUNNING') await new Promise((r) => setTimeout(r, 5));

    // A second invocation of the same runId, one second after the claim.
    const second = await executeDiagnosisRun({ ...request, remainingMs: 60_000 }, deps([])).catch((e: Error) => e);
    const afterSecond = await store.getRun(request.runId);
    release();
    const liveResult = await live;

    expect({
      second: (second as Error).name ?? (second as { status: string }).status,
      statusWhileLive: afterSecond?.status,
      errorCode: afterSecond?.errorCode,
      live: (liveResult as Error).name ?? (liveResult as { status: string }).status,
    }).toEqual({
      second: 'DiagnosisRunConflictError',
      statusWhileLive: 'RUNNING',
      errorCode: null,
      live: 'PUBLISHED',
    });
  });
});
