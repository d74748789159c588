import { safeErrorName } from '../errors.ts';
import type { RunStore } from '../store/run-store.ts';
import type { TenantLeaseStore } from '../store/tenant-lease-store.ts';
import { type AbandonmentRule, closeAbandonedRun, isAbandoned } from './abandonment.ts';

export interface SweepDeps {
  store: Pick<
    RunStore,
    'listOpenRuns' | 'getRun' | 'claimQueuedRun' | 'completeRun' | 'forgetOpenRun' | 'listRunRecords'
  >;
  /** The enterprises' lease slots: an abandoned run's slot is released at once (it would expire on its own). */
  leases?: Pick<TenantLeaseStore, 'listLeases' | 'release'>;
  rule: AbandonmentRule;
  now?: () => number;
  /** The most runs one sweep checks (the rest wait for the next sweep): every loop is bounded. */
  maxRuns?: number;
  /** Stops early when this returns false (the sweeper Lambda's own time is running out). */
  hasTime?: () => boolean;
  log?: (entry: Record<string, unknown>) => void;
}

export interface SweepReport {
  /** Open runs looked at. */
  checked: number;
  /** Runs closed FAILED RUN_ABANDONED by this sweep. */
  closed: string[];
  /** Ids dropped from an enterprise's open runs because their run had already ended (or was gone). */
  repaired: number;
  /** Runs whose check failed (a table error): they are checked again next time. */
  errors: number;
  /** Whether the sweep stopped before checking every open run (its bound or its time). */
  partial: boolean;
}

/** The most runs one sweep checks by default (enterprises × TENANT_MAX_OPEN_RUNS stays far below it). */
export const MAX_SWEEP_RUNS = 5_000;

/**
 * The scheduled sweeper: every open run of every enterprise (the admission items hold them) is checked against the
 * one abandonment rule, and a run no invocation can still be working on is closed FAILED `RUN_ABANDONED`, whatever
 * started it (the workflow, a batch item, a local run, a trigger) — so no run is ever left RUNNING or QUEUED. Its lease
 * slot is released, and an id whose run already ended is dropped from its enterprise's open runs (a completion whose
 * process died between its two writes). Closing is conditional on the run being as it was judged.
 */
export async function sweepOpenRuns(deps: SweepDeps): Promise<SweepReport> {
  const now = deps.now ?? Date.now;
  const maxRuns = deps.maxRuns ?? MAX_SWEEP_RUNS;
  const report: SweepReport = { checked: 0, closed: [], repaired: 0, errors: 0, partial: false };
  for (const { enterpriseId, runId } of sweepOrder(await deps.store.listOpenRuns(), now())) {
    if (report.checked >= maxRuns || deps.hasTime?.() === false) {
      report.partial = true;
      return report;
    }
    report.checked += 1;
    try {
      const run = await deps.store.getRun(runId);
      if (run === null || (run.status !== 'QUEUED' && run.status !== 'RUNNING')) {
        await deps.store.forgetOpenRun(enterpriseId, runId);
        report.repaired += 1;
        continue;
      }
      if (!isAbandoned(run, now(), deps.rule)) continue;
      if (!(await closeAbandonedRun(deps.store, run, now()))) continue;
      report.closed.push(runId);
      deps.log?.({ message: 'abandoned run closed', runId, enterpriseId, status: run.status });
      if (deps.leases !== undefined) {
        for (const lease of await deps.leases.listLeases(enterpriseId)) {
          if (lease.holder.startsWith(`${runId}@`)) await deps.leases.release(lease);
        }
      }
    } catch (error) {
      report.errors += 1;
      deps.log?.({ message: 'sweep of a run failed', runId, error: safeErrorName(error) });
    }
  }
  return report;
}

/**
 * The order one sweep checks open runs in: every enterprise's first, then every enterprise's second, and so on, with
 * the enterprises rotated by the minute and each one's runs by each turn of the enterprises. NOTE: a sweep stops at its bound (or its Lambda's time);
 * in a fixed order the enterprises, or the runs, after the cut would never be checked and their crashed runs would
 * stay open for good. Here each sweep reaches every enterprise before any gets a second run checked, and a cut falls
 * elsewhere each minute, so every open run is checked within a bounded number of sweeps.
 */
function sweepOrder(
  openRuns: readonly { enterpriseId: string; runIds: readonly string[] }[],
  nowMs: number,
): { enterpriseId: string; runId: string }[] {
  // NOTE: the runs turn once per turn of the enterprises: with one shared rotation, an enterprise's place and its
  // runs' would move together and some run would never come first.
  const tick = Math.floor(nowMs / 60_000);
  const turns = openRuns.length === 0 ? 0 : Math.floor(tick / openRuns.length);
  const enterprises = rotated(openRuns, tick).map(({ enterpriseId, runIds }) => ({
    enterpriseId,
    runIds: rotated(runIds, turns),
  }));
  const order: { enterpriseId: string; runId: string }[] = [];
  const deepest = Math.max(0, ...enterprises.map(({ runIds }) => runIds.length));
  for (let rank = 0; rank < deepest; rank += 1) {
    for (const { enterpriseId, runIds } of enterprises) {
      const runId = runIds[rank];
      if (runId !== undefined) order.push({ enterpriseId, runId });
    }
  }
  return order;
}

function rotated<T>(items: readonly T[], by: number): T[] {
  if (items.length === 0) return [];
  const start = by % items.length;
  return [...items.slice(start), ...items.slice(0, start)];
}
