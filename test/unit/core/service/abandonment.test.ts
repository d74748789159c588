import { ABANDON_MARGIN_MS, abandonedAt, isAbandoned, type StoredRun, sweepOpenRuns } from '@diagnosis/core';
import { createMemoryRunStore, createMemoryTenantLeaseStore } from '@diagnosis/core/store';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { storedRun } from '../../../support/stored-run.ts';

const T0 = Date.parse('2026-11-30T06:10:00Z');
const iso = (ms: number) => new Date(ms).toISOString();
const FLUSH = 3_000;

function running(overrides: Partial<StoredRun> = {}): StoredRun {
  return storedRun({
    runId: 'r',
    status: 'RUNNING',
    query: 'q',
    deadlineAt: iso(T0 + 300_000),
    heartbeatAt: iso(T0),
    createdAt: iso(T0 - 3_600_000),
    ...overrides,
  });
}

describe('abandonedAt', () => {
  it('counts a RUNNING run abandoned only after its deadline, flush reserve and margin, and a silent margin', () => {
    const run = running();
    expect(abandonedAt(run, { flushReserveMs: FLUSH })).toBe(T0 + 300_000 + FLUSH + ABANDON_MARGIN_MS);
    // A sign of life late in its deadline keeps it open a margin longer.
    const late = running({ heartbeatAt: iso(T0 + 340_000) });
    expect(abandonedAt(late, { flushReserveMs: FLUSH })).toBe(T0 + 340_000 + ABANDON_MARGIN_MS);
    // Never from when it was queued: a run claimed after an hour's wait is not abandoned at once.
    expect(isAbandoned(run, T0 + 1_000, { flushReserveMs: FLUSH })).toBe(false);
  });

  it('counts a QUEUED run abandoned after its start timeout, and an ended run never', () => {
    const queued = running({ status: 'QUEUED', deadlineAt: null, heartbeatAt: null, createdAt: iso(T0) });
    expect(abandonedAt(queued, { flushReserveMs: FLUSH, queuedTimeoutMs: 60_000 })).toBe(T0 + 60_000);
    expect(abandonedAt(queued, { flushReserveMs: FLUSH })).toBeNull();
    expect(abandonedAt(running({ status: 'SUCCEEDED' }), { flushReserveMs: FLUSH })).toBeNull();
  });

  it('never calls a run abandoned while its invocation could still be running or just showed a sign of life', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 900_000 }),
        fc.integer({ min: -900_000, max: 900_000 }),
        fc.integer({ min: 0, max: 2_000_000 }),
        (deadlineOffset, beatOffset, nowOffset) => {
          const run = running({ deadlineAt: iso(T0 + deadlineOffset), heartbeatAt: iso(T0 + beatOffset) });
          const now = T0 + nowOffset;
          const lambdaMayRun = now < T0 + deadlineOffset + FLUSH + ABANDON_MARGIN_MS;
          const recentlyAlive = now < T0 + beatOffset + ABANDON_MARGIN_MS;
          expect(isAbandoned(run, now, { flushReserveMs: FLUSH })).toBe(!lambdaMayRun && !recentlyAlive);
        },
      ),
    );
  });
});

describe('sweepOpenRuns', () => {
  const request = (runId: string) => ({
    runId,
    sessionId: 's',
    enterpriseId: 'E1001',
    query: 'q',
    continueSession: false,
  });

  it('closes abandoned runs FAILED RUN_ABANDONED, frees their lease slots, leaves live ones, and repairs the open set', async () => {
    let now = T0;
    const store = createMemoryRunStore({ now: () => now });
    const leases = createMemoryTenantLeaseStore({ now: () => now });
    await store.startRun(request('dead'), { deadlineAt: T0 + 60_000 });
    await store.startRun(request('alive'), { deadlineAt: T0 + 600_000 });
    await store.queueRun(request('stuck'));
    await leases.acquire({ enterpriseId: 'E1001', holder: 'dead@req-1', capacity: 4, expiresAt: T0 + 3_600_000 });
    await leases.acquire({ enterpriseId: 'E1001', holder: 'alive@req-2', capacity: 4, expiresAt: T0 + 3_600_000 });
    now = T0 + 200_000;
    const report = await sweepOpenRuns({
      store,
      leases,
      rule: { flushReserveMs: FLUSH, queuedTimeoutMs: 150_000 },
      now: () => now,
    });
    expect(report).toMatchObject({ checked: 3, closed: ['dead', 'stuck'], repaired: 0, errors: 0, partial: false });
    expect(await store.getRun('dead')).toMatchObject({ status: 'FAILED', errorCode: 'RUN_ABANDONED' });
    expect(await store.getRun('stuck')).toMatchObject({ status: 'FAILED', errorCode: 'RUN_ABANDONED' });
    expect(await store.getRun('alive')).toMatchObject({ status: 'RUNNING' });
    expect((await leases.listLeases('E1001')).map((lease) => lease.holder)).toEqual(['alive@req-2']);
    expect(await store.listOpenRuns()).toEqual([{ enterpriseId: 'E1001', runIds: ['alive'] }]);
  });

  it('stops at its bound and says so; an open id whose run ended is dropped', async () => {
    const store = createMemoryRunStore({ now: () => T0 });
    for (const id of ['a', 'b', 'c']) await store.startRun(request(id), { deadlineAt: T0 + 60_000 });
    const partial = await sweepOpenRuns({ store, rule: { flushReserveMs: FLUSH }, now: () => T0, maxRuns: 2 });
    expect(partial).toMatchObject({ checked: 2, partial: true, closed: [] });
    // A completion whose second write (leaving the open set) never happened: the sweeper repairs it.
    const items = store.items as unknown as Map<string, Record<string, unknown>>;
    const key = 'RUN#a|RUN';
    items.set(key, { ...items.get(key), status: 'SUCCEEDED' });
    const repaired = await sweepOpenRuns({ store, rule: { flushReserveMs: FLUSH }, now: () => T0 });
    expect(repaired).toMatchObject({ checked: 3, repaired: 1, closed: [] });
    expect((await store.listOpenRuns())[0]?.runIds).toEqual(['b', 'c']);
  });
});
