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
  for (const { enterpriseId, runIds } of await deps.store.listOpenRuns()) {
    for (const runId of runIds) {
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
  }
  return report;
}
