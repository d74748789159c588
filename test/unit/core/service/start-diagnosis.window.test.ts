import { startDiagnosis } from '@diagnosis/core';
import { createMemoryRunStore } from '@diagnosis/core/store';
import { describe, expect, it } from 'vitest';
import { recordingWorkflow } from '../../../support/recording-workflow.ts';

const window = { from: '2026-11-30T05:35:00.000Z', to: '2026-11-30T06:10:00.000Z' };
const trigger = {
  source: 'cloudwatch' as const,
  incidentKey: 'arn:aws:cloudwatch:eu-west-1:123456789012:alarm:a@2026-11-30T06:05:00.000Z',
  eventId: 'event-1',
  title: 'a',
  startedAt: '2026-11-30T06:05:00.000Z',
};
const request = {
  runId: 'run-window',
  sessionId: 's',
  enterpriseId: 'E1001',
  query: 'E1001 的订单从 14:05 开始失败，为什么？',
  continueSession: false,
  window,
};

const recorder = () => recordingWorkflow();

describe('startDiagnosis with an incident window and a trigger', () => {
  it('stores both on the run and starts the workflow with the request’s identity and query only', async () => {
    const store = createMemoryRunStore();
    const { payloads, workflow } = recorder();
    const run = await startDiagnosis({ ...request, trigger }, { store, workflow });
    expect(run).toMatchObject({ status: 'QUEUED', window, trigger });
    expect(payloads).toEqual([
      { runId: 'run-window', sessionId: 's', enterpriseId: 'E1001', query: request.query, continueSession: false },
    ]);
  });

  it('answers a replay with the same window with the same run, and one with another window or none as a conflict', async () => {
    const store = createMemoryRunStore();
    const { workflow } = recorder();
    await startDiagnosis(request, { store, workflow });
    expect(await startDiagnosis(request, { store, workflow })).toMatchObject({ runId: 'run-window', window });
    await expect(
      startDiagnosis({ ...request, window: { ...window, to: '2026-11-30T06:11:00.000Z' } }, { store, workflow }),
    ).rejects.toMatchObject({ code: 'RUN_ID_CONFLICT' });
    const { window: _, ...withoutWindow } = request;
    await expect(startDiagnosis(withoutWindow, { store, workflow })).rejects.toMatchObject({ code: 'RUN_ID_CONFLICT' });
  });
});
