import type { RunStore, StoredRun } from '../store/run-store.ts';
import { closeRun } from './close-run.ts';

/**
 * The one abandonment rule, for every path that can find a run nobody is working on any more (a second invocation
 * of the run, a workflow's status-change event, the scheduled sweeper): a RUNNING run is abandoned once no invocation
 * can still be running it — its Lambda is stopped at its deadline plus the flush reserve — plus a margin for clock
 * skew, and once it has shown no sign of life (`heartbeatAt`) within that margin either. A QUEUED run is abandoned
 * once it waited longer than its workflow can keep it waiting (`queuedTimeoutMs`). NOTE: never decided from when a
 * RUNNING run was queued (`createdAt`): a run may wait long for its workflow before it is claimed.
 */
export interface AbandonmentRule {
  /** The time kept after a run's deadline to flush its audit (FLUSH_RESERVE_MS): its Lambda stops after that. */
  flushReserveMs: number;
  /** Kept on top for clock skew between hosts (default {@link ABANDON_MARGIN_MS}). */
  marginMs?: number;
  /** How long a QUEUED run may wait for its workflow to claim it (the sweeper's; see `queuedStartTimeoutMs`). */
  queuedTimeoutMs?: number;
}

/** The margin kept for clock skew on top of a run's own deadline and flush reserve. */
export const ABANDON_MARGIN_MS = 60_000;
/** Runs stored before they carried a deadline: abandoned this long after they were made (Lambda's limit is 15 min). */
const LEGACY_STALE_RUN_MS = 16 * 60_000;
/** How often a running invocation shows a sign of life (`heartbeat_at`) besides its progress writes. */
export const HEARTBEAT_MS = 30_000;

/** The instant from which a RUNNING or QUEUED run counts as abandoned, or null for an ended run. */
export function abandonedAt(run: StoredRun, rule: AbandonmentRule): number | null {
  const margin = rule.marginMs ?? ABANDON_MARGIN_MS;
  if (run.status === 'QUEUED') {
    return rule.queuedTimeoutMs === undefined ? null : Date.parse(run.createdAt) + rule.queuedTimeoutMs;
  }
  if (run.status !== 'RUNNING') return null;
  const stopped =
    run.deadlineAt === null
      ? Date.parse(run.createdAt) + LEGACY_STALE_RUN_MS
      : Date.parse(run.deadlineAt) + rule.flushReserveMs + margin;
  const lastSign = run.heartbeatAt === null ? Number.NEGATIVE_INFINITY : Date.parse(run.heartbeatAt) + margin;
  return Math.max(stopped, lastSign);
}

export function isAbandoned(run: StoredRun, nowMs: number, rule: AbandonmentRule): boolean {
  const at = abandonedAt(run, rule);
  return at !== null && nowMs >= at;
}

/**
 * Closes an abandoned run as FAILED `RUN_ABANDONED`, keeping what it used and checked. Conditional on the run being
 * exactly as it was judged (still QUEUED; or still RUNNING with the same heartbeat), so a run that showed a sign of
 * life, was claimed or ended meanwhile is left alone. Returns whether this call closed it.
 */
export async function closeAbandonedRun(
  store: Pick<RunStore, 'claimQueuedRun' | 'completeRun' | 'listRunRecords'>,
  run: StoredRun,
  nowMs: number,
): Promise<boolean> {
  return closeRun(store, run, { errorCode: 'RUN_ABANDONED' }, { claimAt: nowMs, unchangedHeartbeat: true });
}
