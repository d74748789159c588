import { RunStoreError } from '../errors.ts';
import { failed } from '../release/release-diagnosis.ts';
import { emptyRunUsage } from '../run/run-context.ts';
import type { RunStore, StoredRun } from '../store/run-store.ts';

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
  store: Pick<RunStore, 'getRun' | 'claimQueuedRun' | 'completeRun'>,
  options: { owner?: string; now?: () => number } = {},
): Promise<StoredRun | null> {
  const run = await store.getRun(runId);
  if (run === null || run.status !== 'QUEUED') return run;
  if (options.owner !== undefined && run.executionArn !== null && run.executionArn !== options.owner) return run;
  const now = options.now ?? Date.now;
  const taken = await store.claimQueuedRun(runId, now(), options.owner === undefined ? {} : { owner: options.owner });
  if (taken !== null) {
    const decision = failed(taken.usage ?? emptyRunUsage(), errorCode, taken.progress);
    await store.completeRun(runId, decision.outcome).catch((error: unknown) => {
      if (!(error instanceof RunStoreError && error.code === 'RUN_NOT_RUNNING')) throw error;
    });
  }
  return store.getRun(runId);
}
