import { cancelled, closeRun, emptyRunUsage, RunStoreError, releaseDiagnosis } from '@diagnosis/core';
import { createMemoryRunStore } from '@diagnosis/core/store';
import { describe, expect, it } from 'vitest';

const T0 = Date.parse('2026-11-30T06:10:00Z');
const OWNER = 'arn:aws:states:local:000000000000:execution:DiagnosisWorkflow:run-close';
const OTHER = 'arn:aws:states:local:000000000000:execution:DiagnosisWorkflow:other';
const request = {
  runId: 'run-close',
  sessionId: 's',
  enterpriseId: 'E1001',
  query: 'E1001 的订单从 14:05 开始失败，为什么？',
  continueSession: false,
};

function storeAt(start = T0) {
  let nowMs = start;
  const store = createMemoryRunStore({ now: () => nowMs });
  return { store, advance: (ms: number) => (nowMs += ms) };
}

describe('closeRun', () => {
  it('takes a QUEUED run and closes it FAILED with its code when the owner matches', async () => {
    const { store } = storeAt();
    await store.queueRun(request, { executionArn: OWNER });
    const queued = await store.getRun(request.runId);
    if (queued === null) throw new Error('not queued');

    const closed = await closeRun(store, queued, { errorCode: 'WORKFLOW_FAILED' }, { claimAt: T0, owner: OWNER });

    expect(closed).toBe(true);
    expect(await store.getRun(request.runId)).toMatchObject({
      status: 'FAILED',
      errorCode: 'WORKFLOW_FAILED',
      usage: emptyRunUsage(),
    });
  });

  it('leaves a QUEUED run alone when another execution owns it', async () => {
    const { store } = storeAt();
    await store.queueRun(request, { executionArn: OWNER });
    const queued = await store.getRun(request.runId);
    if (queued === null) throw new Error('not queued');

    const closed = await closeRun(store, queued, { errorCode: 'WORKFLOW_FAILED' }, { claimAt: T0, owner: OTHER });

    expect(closed).toBe(false);
    expect(await store.getRun(request.runId)).toMatchObject({ status: 'QUEUED', errorCode: null });
  });

  it('leaves a QUEUED run alone when a cancel was asked for before the claim', async () => {
    const { store } = storeAt();
    await store.queueRun(request);
    const queued = await store.getRun(request.runId);
    if (queued === null) throw new Error('not queued');
    await store.requestCancel(request.runId, cancelled(emptyRunUsage()).outcome);

    expect(await closeRun(store, queued, { errorCode: 'RUN_ABANDONED' }, { claimAt: T0 })).toBe(false);
    expect(await store.getRun(request.runId)).toMatchObject({ status: 'CANCELLED' });
  });

  it('leaves a RUNNING run alone when its heartbeat moved since it was judged', async () => {
    const { store, advance } = storeAt();
    await store.startRun(request, { deadlineAt: T0 + 60_000 });
    const judged = await store.getRun(request.runId);
    if (judged === null) throw new Error('not started');
    advance(1_000);
    await store.heartbeat(request.runId);

    const closed = await closeRun(store, judged, { errorCode: 'RUN_ABANDONED' }, { unchangedHeartbeat: true });

    expect(closed).toBe(false);
    expect(await store.getRun(request.runId)).toMatchObject({ status: 'RUNNING' });
  });

  it('never touches an ended run', async () => {
    const { store } = storeAt();
    await store.startRun(request, { deadlineAt: T0 + 60_000 });
    await store.completeRun(request.runId, cancelled(emptyRunUsage()).outcome);
    const ended = await store.getRun(request.runId);
    if (ended === null) throw new Error('not stored');

    expect(await closeRun(store, ended, { errorCode: 'RUN_ABANDONED' })).toBe(false);
    expect(await store.getRun(request.runId)).toMatchObject({ status: 'CANCELLED', errorCode: null });
  });

  it('answers false when someone else ended the run meanwhile, and rethrows that for the run’s own invocation', async () => {
    const { store } = storeAt();
    await store.startRun(request, { deadlineAt: T0 + 60_000 });
    const judged = await store.getRun(request.runId);
    if (judged === null) throw new Error('not started');
    await store.completeRun(request.runId, cancelled(emptyRunUsage()).outcome);

    expect(await closeRun(store, judged, { errorCode: 'RUN_ABANDONED' })).toBe(false);
    await expect(closeRun(store, judged, { errorCode: 'COMPLETION_FAILED' }, { ownRun: true })).rejects.toBeInstanceOf(
      RunStoreError,
    );
  });

  it('stores the FAILED decision of the run’s own invocation with what it keeps beside it', async () => {
    const { store } = storeAt();
    await store.startRun(request, { deadlineAt: T0 + 60_000 });
    const decision = releaseDiagnosis({ error: new Error('the run failed'), usage: emptyRunUsage() });

    const closed = await closeRun(
      store,
      { runId: request.runId, status: 'RUNNING' },
      { decision, details: { deadlineAt: T0 + 60_000, masking: 'identifiers' } },
      { ownRun: true },
    );

    expect(closed).toBe(true);
    expect(await store.getRun(request.runId)).toMatchObject({
      status: 'FAILED',
      errorCode: 'INTERNAL',
      masking: 'identifiers',
    });
  });
});
