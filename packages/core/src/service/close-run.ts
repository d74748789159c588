import { RunStoreError } from '../errors.ts';
import { failed, type ReleaseDecision } from '../release/release-diagnosis.ts';
import { loadAuditScorecard, neverRanScorecard } from '../report/load-audit-scorecard.ts';
import { emptyRunUsage } from '../run/run-context.ts';
import type { RunOutcome, RunStore, StoredRun } from '../store/run-store.ts';

/** A run as it was judged when someone decided to close it. */
export type ClosableRun = Pick<StoredRun, 'runId' | 'status'> &
  Partial<Pick<StoredRun, 'usage' | 'progress' | 'heartbeatAt' | 'deadlineAt'>>;

/** What closing a run needs of the store: the claim, the conditional completion, and the audit it scores. */
export type ClosingStore = Pick<RunStore, 'claimQueuedRun' | 'completeRun' | 'listRunRecords'>;

/**
 * Why a run is closed FAILED: a stable error code (the run keeps the usage and progress it has stored), or the FAILED
 * decision the run's own invocation made, with what is stored beside it (its limits, deadline, masking, scorecard).
 */
export type CloseReason =
  | { errorCode: string }
  | {
      decision: ReleaseDecision;
      details?: Pick<RunOutcome, 'limits' | 'deadlineAt' | 'masking' | 'processScorecard'>;
    };

/** The conditions of a close: who may take a QUEUED run, and what a RUNNING one must still be. */
export interface CloseRules {
  /** The instant a QUEUED run is taken at to be closed (the claim's `deadlineAt`; default now). */
  claimAt?: number;
  /** The owner passed to `claimQueuedRun` (an execution, or null for a local run); absent: ownership not checked. */
  owner?: string | null;
  /**
   * Completes only while the heartbeat is the one the run was judged with (or got when it was taken): a run that
   * showed a sign of life meanwhile is left alone (the abandonment rule).
   */
  unchangedHeartbeat?: boolean;
  /**
   * The run's own invocation closes it: a run that is no longer RUNNING when it is completed is an error
   * (`RUN_NOT_RUNNING` propagates) instead of someone else's close to leave alone.
   */
  ownRun?: boolean;
}

/**
 * The one way a run is closed as FAILED, for every path: a workflow that could not start or gave up on a QUEUED run,
 * an invocation with too little time, an outcome the table refused, an abandoned run. NOTE: only from the status it
 * was judged in — a QUEUED run is first taken (`claimQueuedRun`: only while QUEUED, never after a cancel request,
 * and only by `rules.owner` when given), a RUNNING run is completed only while it is RUNNING (`completeRun` is
 * conditional) — so a run that was taken, cancelled or ended meanwhile is left alone. An ended run is never touched.
 * Every close stores the run's process scorecard in the same conditional write: the one its own invocation computed
 * (`reason.details`), else one computed from the stored audit (`loadAuditScorecard`; a run closed while QUEUED never
 * ran: `neverRanScorecard`). A RUNNING run closed with a code keeps its deadline. Returns whether this call closed it.
 */
export async function closeRun(
  store: ClosingStore,
  run: ClosableRun,
  reason: CloseReason,
  rules: CloseRules = {},
): Promise<boolean> {
  let current = run;
  if (run.status === 'QUEUED') {
    const claimAt = rules.claimAt ?? Date.now();
    const taken =
      rules.owner === undefined
        ? await store.claimQueuedRun(run.runId, claimAt)
        : await store.claimQueuedRun(run.runId, claimAt, { owner: rules.owner });
    if (taken === null) return false;
    current = taken;
  } else if (run.status !== 'RUNNING') {
    return false;
  }
  const decided: RunOutcome =
    'errorCode' in reason
      ? {
          ...failed(current.usage ?? emptyRunUsage(), reason.errorCode, current.progress ?? null).outcome,
          ...(run.status === 'RUNNING' &&
          typeof run.deadlineAt === 'string' &&
          Number.isFinite(Date.parse(run.deadlineAt))
            ? { deadlineAt: Date.parse(run.deadlineAt) }
            : {}),
        }
      : { ...reason.decision.outcome, ...reason.details };
  // NOTE: read before the write that closes the run; the write is conditional on the run being as it was judged, so a
  // scorecard is stored only with the close that wins, and never over one a completing invocation stored.
  const outcome: RunOutcome =
    decided.processScorecard === undefined || decided.processScorecard === null
      ? {
          ...decided,
          processScorecard:
            run.status === 'QUEUED' ? neverRanScorecard(decided) : await loadAuditScorecard(store, run.runId, decided),
        }
      : decided;
  try {
    if (rules.unchangedHeartbeat === true) {
      await store.completeRun(run.runId, outcome, { ifHeartbeatAt: current.heartbeatAt ?? null });
    } else {
      await store.completeRun(run.runId, outcome);
    }
    return true;
  } catch (error) {
    if (rules.ownRun !== true && error instanceof RunStoreError && error.code === 'RUN_NOT_RUNNING') return false;
    throw error;
  }
}

/**
 * Closes a QUEUED run that nothing will take any more — its workflow execution could not be started, or failed or
 * timed out before claiming it — as FAILED with `errorCode`. NOTE: only a QUEUED run changes, and only while it is
 * still QUEUED (the claim is conditional): a RUNNING run is in an invocation's hands and is never closed here; it ends
 * by that invocation or, if the invocation died, by the abandonment rule (`abandonment.ts`). `owner`: the execution
 * whose failure this is; a run owned by another execution is left alone. Returns the run afterwards, or null.
 */
export async function closeQueuedRun(
  runId: string,
  errorCode: string,
  store: Pick<RunStore, 'getRun'> & ClosingStore,
  options: { owner?: string; now?: () => number } = {},
): Promise<StoredRun | null> {
  const run = await store.getRun(runId);
  if (run === null || run.status !== 'QUEUED') return run;
  const { owner } = options;
  if (owner !== undefined && run.executionArn !== null && run.executionArn !== owner) return run;
  const now = options.now ?? Date.now;
  await closeRun(store, run, { errorCode }, { claimAt: now(), ...(owner === undefined ? {} : { owner }) });
  return store.getRun(runId);
}
