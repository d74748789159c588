import { RunStoreError } from '../errors.ts';
import { failed } from '../release/release-diagnosis.ts';
import { emptyRunUsage } from '../run/run-context.ts';
import type { RunStore, StoredRun } from '../store/run-store.ts';

/**
 * Closes a run that nothing will finish any more — its workflow failed, timed out, or could not be started — as
 * FAILED with `errorCode`, keeping what it used and checked. Only a QUEUED or RUNNING run changes (conditionally: a
 * run that ends meanwhile is left as it ended). Returns the run afterwards, or null if unknown.
 */
export async function closeUnfinishedRun(
  runId: string,
  errorCode: string,
  store: Pick<RunStore, 'getRun' | 'claimQueuedRun' | 'completeRun'>,
  now: () => number = Date.now,
): Promise<StoredRun | null> {
  const run = await store.getRun(runId);
  if (run === null || (run.status !== 'QUEUED' && run.status !== 'RUNNING')) return run;
  const taken = run.status === 'QUEUED' ? await store.claimQueuedRun(runId, now()) : run;
  if (taken !== null) {
    const decision = failed(taken.usage ?? emptyRunUsage(), errorCode, taken.progress);
    await store.completeRun(runId, decision.outcome).catch((error: unknown) => {
      if (!(error instanceof RunStoreError && error.code === 'RUN_NOT_RUNNING')) throw error;
    });
  }
  return store.getRun(runId);
}
