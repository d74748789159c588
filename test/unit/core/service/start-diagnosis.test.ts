import { type DiagnosisWorkflow, startDiagnosis } from '@diagnosis/core';
import { createMemoryRunStore } from '@diagnosis/core/store';
import { describe, expect, it } from 'vitest';

const request = {
  runId: 'run-start',
  sessionId: 's',
  enterpriseId: 'E1001',
  query: 'E1001 的订单从 14:05 开始失败，为什么？',
  continueSession: false,
};

describe('startDiagnosis', () => {
  it('closes the run FAILED when its workflow cannot be started, so it never waits QUEUED forever', async () => {
    const store = createMemoryRunStore();
    const failing: DiagnosisWorkflow = {
      executionArnOf: (runId: string) => `arn:aws:states:local:000000000000:execution:DiagnosisWorkflow:${runId}`,
      start: async () => {
        throw Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
      },
      stop: async () => undefined,
    };
    await expect(startDiagnosis(request, { store, workflow: failing })).rejects.toMatchObject({
      name: 'ThrottlingException',
    });
    expect(await store.getRun(request.runId)).toMatchObject({ status: 'FAILED', errorCode: 'WORKFLOW_START_FAILED' });
    // The same request again gets that stored answer: nothing is queued twice.
    const started: string[] = [];
    const working: DiagnosisWorkflow = {
      executionArnOf: (runId: string) => `arn:aws:states:local:000000000000:execution:DiagnosisWorkflow:${runId}`,
      start: async (next) => void started.push(next.runId),
      stop: async () => undefined,
    };
    expect(await startDiagnosis(request, { store, workflow: working })).toMatchObject({ status: 'FAILED' });
    expect(started).toEqual([]);
  });

  it.each([
    ['a colon', 'tenant:run:1'],
    ['81 characters', `r${'x'.repeat(80)}`],
  ])('refuses a run id with %s (not a workflow execution name) before anything is written', async (_label, runId) => {
    const store = createMemoryRunStore();
    const workflow: DiagnosisWorkflow = {
      executionArnOf: (id: string) => `arn:aws:states:local:000000000000:execution:DiagnosisWorkflow:${id}`,
      start: async () => undefined,
      stop: async () => undefined,
    };
    await expect(startDiagnosis({ ...request, runId }, { store, workflow })).rejects.toMatchObject({
      code: 'INVALID_IDENTIFIER',
    });
    expect(store.items.size).toBe(0);
  });
});
