/**
 * The sweeper under its bound: a sweep stops at `maxRuns` (or its Lambda's time), so in a
 * fixed order the enterprises, or the runs, after the cut were never checked, and their crashed runs stayed RUNNING
 * for good, holding their open-run slots (TENANT_BUSY). Every open run must be reached within a bounded number of
 * sweeps, whatever the other tenants hold.
 */
import { sweepOpenRuns } from '@diagnosis/core';
import { createMemoryRunStore } from '@diagnosis/core/store';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

const T0 = Date.parse('2026-11-30T06:10:00Z');
const FLUSH = 3_000;
const MINUTE = 60_000;
const request = (runId: string, enterpriseId: string) => ({
  runId,
  sessionId: 's',
  enterpriseId,
  query: 'q',
  continueSession: false,
});

describe('sweepOpenRuns under its bound', () => {
  it("reaches a later enterprise's crashed run in its first sweep, though an earlier one fills the bound", async () => {
    let now = T0;
    const store = createMemoryRunStore({ now: () => now });
    for (const id of ['a1', 'a2', 'a3']) await store.startRun(request(id, 'E0001'), { deadlineAt: T0 + 86_400_000 });
    await store.startRun(request('crashed', 'E9009'), { deadlineAt: T0 + 60_000 });
    now = T0 + 600_000;
    const report = await sweepOpenRuns({ store, rule: { flushReserveMs: FLUSH }, now: () => now, maxRuns: 3 });
    expect(report).toMatchObject({ checked: 3, closed: ['crashed'], partial: true });
    expect(await store.getRun('crashed')).toMatchObject({ status: 'FAILED', errorCode: 'RUN_ABANDONED' });
  });

  it('closes every crashed run within a bounded number of sweeps a minute apart, however the bound cuts (property)', async () => {
    const tenant = fc.record({ healthy: fc.nat(6), crashed: fc.nat(3) });
    await fc.assert(
      fc.asyncProperty(
        fc.array(tenant, { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 1, max: 4 }),
        async (tenants, maxRuns) => {
          let now = T0;
          const store = createMemoryRunStore({ now: () => now });
          const crashed: string[] = [];
          for (const [index, { healthy, crashed: dead }] of tenants.entries()) {
            const enterpriseId = `E${String(1001 + index)}`;
            for (let run = 0; run < healthy; run += 1) {
              await store.startRun(request(`h-${index}-${run}`, enterpriseId), { deadlineAt: T0 + 86_400_000 });
            }
            for (let run = 0; run < dead; run += 1) {
              await store.startRun(request(`c-${index}-${run}`, enterpriseId), { deadlineAt: T0 + MINUTE });
              crashed.push(`c-${index}-${run}`);
            }
          }
          now = T0 + 10 * MINUTE;
          // Each enterprise comes first once every n sweeps and its runs turn once per turn of the enterprises, so a
          // static open set is checked whole within n × longest sweeps; each closed run changes the set once.
          const longest = Math.max(...tenants.map(({ healthy, crashed: dead }) => healthy + dead));
          const sweeps = tenants.length * longest * (1 + Math.max(...tenants.map(({ crashed: dead }) => dead)));
          for (let sweep = 0; sweep < sweeps; sweep += 1) {
            await sweepOpenRuns({ store, rule: { flushReserveMs: FLUSH }, now: () => now, maxRuns });
            now += MINUTE;
          }
          for (const runId of crashed) expect((await store.getRun(runId))?.status).toBe('FAILED');
        },
      ),
      { numRuns: 150 },
    );
  });
});
