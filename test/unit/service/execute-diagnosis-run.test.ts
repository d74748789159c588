import { executeDiagnosisRun } from '@diagnosis/core';
import { createMemoryRunStore, RunStoreError } from '@diagnosis/core/store';
import { describe, expect, it } from 'vitest';
import { createFakeEvidence } from '../../support/fake-evidence.ts';
import { noConclusionDraft } from '../../support/run-fixtures.ts';
import { scriptedModel, textRound } from '../../support/scripted-model.ts';

const command = {
  runId: 'run-close',
  sessionId: 's',
  enterpriseId: 'E1001',
  query: 'E1001 的订单从 14:05 开始失败，为什么？',
  continueSession: false,
  remainingMs: 60_000,
};

/** A store whose first completion fails with `failure`; the rest behaves as the in-memory store. */
function storeFailingFirstCompletion(failure: Error) {
  const store = createMemoryRunStore();
  const complete = store.completeRun.bind(store);
  let calls = 0;
  store.completeRun = async (runId, outcome) => {
    calls += 1;
    if (calls === 1) throw failure;
    return complete(runId, outcome);
  };
  return store;
}

describe('executeDiagnosisRun', () => {
  it.each([
    ['too large for its item', new RunStoreError('RUN_ITEM_TOO_LARGE', 'too large'), 'RUN_ITEM_TOO_LARGE'],
    [
      'refused by the table',
      Object.assign(new Error('Item size has exceeded'), { name: 'ValidationException' }),
      'COMPLETION_FAILED',
    ],
  ])('closes the run as FAILED in a minimal item when its outcome is %s', async (_label, failure, code) => {
    const store = storeFailingFirstCompletion(failure);
    const result = await executeDiagnosisRun(command, {
      model: scriptedModel([textRound(JSON.stringify(noConclusionDraft()))]),
      evidence: createFakeEvidence().evidence,
      createStore: () => store,
      flushReserveMs: 100,
      limits: { finalRoundReserveMs: 100 },
    });
    expect(result).toMatchObject({ status: 'FAILED', report: { kind: 'FAILED', error_code: code } });
    const stored = await store.getRun(command.runId);
    expect(stored).toMatchObject({ status: 'FAILED', errorCode: code, draft: null, publishedResult: null });
    expect(stored?.usage?.modelCalls).toBe(1);
  });
});
