import type { StoredRun } from '@diagnosis/core';

/**
 * A stored run item as the run store returns it, with every field empty (null, false) but the identity — for unit
 * tests of code that reads runs. Each test names the fields its case is about; nothing else differs between tests.
 */
export function storedRun(fields: Partial<StoredRun> & Pick<StoredRun, 'runId' | 'status'>): StoredRun {
  return {
    entity: 'run',
    sessionId: 's',
    enterpriseId: 'E1001',
    kind: 'DIAGNOSIS',
    query: '为什么？',
    continueSession: false,
    trigger: null,
    window: null,
    stopReason: null,
    collectionStopReason: null,
    errorCode: null,
    modelFailure: null,
    usage: null,
    progress: null,
    draft: null,
    conclusion: null,
    publishedResult: null,
    report: null,
    cancelRequestedAt: null,
    limits: null,
    deadlineAt: null,
    executionArn: null,
    heartbeatAt: null,
    createdAt: '2026-11-30T06:00:00.000Z',
    endedAt: null,
    ...fields,
  };
}
