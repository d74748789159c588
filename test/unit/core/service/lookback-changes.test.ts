import {
  type ChangeRecord,
  DEVELOPMENT_MASKING_SECRET,
  handleIncidentEvent,
  type IncidentDeps,
  type IncidentEvent,
} from '@diagnosis/core';
import { createMemoryChangeStore, createMemoryIncidentStore, createMemoryRunStore } from '@diagnosis/core/store';
import { describe, expect, it } from 'vitest';
import {
  countLookbackChanges,
  withLookbackChangesHint,
} from '../../../../packages/core/src/service/lookback-changes.ts';
import { recordingWorkflow } from '../../../support/recording-workflow.ts';

const T0 = Date.parse('2026-11-30T06:05:00Z');
const MINUTE = 60_000;
const QUERY = 'CloudWatch 告警「inventory-5xx」进入 ALARM 状态。请诊断原因。';

let counter = 0;
const change = (enterpriseId: string, minutesFromT0: number): ChangeRecord => {
  counter += 1;
  const at = new Date(T0 + minutesFromT0 * MINUTE).toISOString();
  return {
    enterpriseId,
    source: 'webhook',
    origin: 'argocd',
    eventId: `event-${counter}`,
    at,
    service: 'inventory-service',
    environment: null,
    kind: 'deploy',
    ref: `v${counter}`,
    actor: null,
    summary: `deploy ${counter}`,
    url: null,
    receivedAt: at,
  };
};

async function storeWith(...records: ChangeRecord[]) {
  const changes = createMemoryChangeStore();
  for (const record of records) await changes.record(record);
  return changes;
}

describe('countLookbackChanges', () => {
  it('counts the enterprise’s changes from the window’s start to the incident’s start', async () => {
    const changes = await storeWith(
      change('E1001', -40),
      change('E1001', -20),
      change('E1001', -1),
      change('E1001', 3),
      change('E1002', -5),
    );
    const range = { fromMs: T0 - 30 * MINUTE, toMs: T0 };
    expect(await countLookbackChanges(changes, 'E1001', range)).toBe(2);
    expect(await countLookbackChanges(changes, 'E1002', range)).toBe(1);
    expect(await countLookbackChanges(changes, 'E3003', range)).toBe(0);
  });

  it('answers null when the read fails or does not answer in time', async () => {
    const failing = { list: async () => Promise.reject(new Error('down')) };
    const hanging = { list: () => new Promise<never>(() => undefined) };
    const range = { fromMs: T0 - 30 * MINUTE, toMs: T0 };
    expect(await countLookbackChanges(failing, 'E1001', range)).toBeNull();
    expect(await countLookbackChanges(hanging, 'E1001', range, 5)).toBeNull();
  });
});

describe('withLookbackChangesHint', () => {
  it('says how many changes fell in the lookback, as a hint and not evidence', () => {
    const hinted = withLookbackChangesHint(QUERY, 3, 4_096);
    expect(hinted.startsWith(QUERY)).toBe(true);
    expect(hinted).toContain('3 条变更');
    expect(hinted).toContain('不是证据');
    expect(hinted).toContain('service changes');
    expect(withLookbackChangesHint(QUERY, 0, 4_096)).toContain('0 条变更');
    expect(withLookbackChangesHint(QUERY, 500, 4_096)).toContain('至少 500 条变更');
  });

  it('leaves the question as it is when the count is unknown or the hint would not fit', () => {
    expect(withLookbackChangesHint(QUERY, null, 4_096)).toBe(QUERY);
    expect(withLookbackChangesHint(QUERY, 3, Buffer.byteLength(QUERY) + 10)).toBe(QUERY);
  });
});

describe('handleIncidentEvent with the change stream', () => {
  function world(changes?: IncidentDeps['changes']) {
    const { workflow } = recordingWorkflow();
    const store = createMemoryRunStore();
    let runs = 0;
    const deps: IncidentDeps = {
      incidents: createMemoryIncidentStore(),
      start: { store, workflow },
      quietPeriodMs: 600_000,
      now: () => T0 + MINUTE,
      newRunId: () => `trig-${(runs++).toString().padStart(3, '0')}`,
      masking: { config: { mode: 'identifiers', secret: DEVELOPMENT_MASKING_SECRET }, pseudonyms: store },
      ...(changes === undefined ? {} : { changes }),
    };
    return { deps, store };
  }
  const event: IncidentEvent = {
    ref: { enterpriseId: 'E1001', source: 'cloudwatch', incidentKey: 'inventory-5xx' },
    eventId: 'ev-1',
    kind: 'TRIGGERED',
    title: 'inventory-5xx',
    startedAt: T0,
    query: QUERY,
    window: { from: new Date(T0 - 30 * MINUTE).toISOString(), to: new Date(T0 + MINUTE).toISOString() },
  };

  it('starts the run with a question that counts its enterprise’s lookback changes', async () => {
    const { deps, store } = world(await storeWith(change('E1001', -10), change('E1001', -2), change('E1002', -3)));
    const outcome = await handleIncidentEvent(event, deps);
    expect(outcome.outcome).toBe('STARTED');
    const run = await store.getRun(outcome.outcome === 'STARTED' ? outcome.runId : '');
    expect(run?.query).toBe(withLookbackChangesHint(QUERY, 2, 4_096));
  });

  it('starts the run with the question unchanged when no change stream is wired', async () => {
    const { deps, store } = world();
    const outcome = await handleIncidentEvent(event, deps);
    const run = await store.getRun(outcome.outcome === 'STARTED' ? outcome.runId : '');
    expect(run?.query).toBe(QUERY);
  });
});
