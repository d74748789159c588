import { cancelled } from '../release/release-diagnosis.ts';
import { neverRanScorecard } from '../report/load-audit-scorecard.ts';
import { emptyRunUsage } from '../run/run-context.ts';
import { isEnded, type RunStore, type StoredRun } from '../store/run-store.ts';
import type { DiagnosisWorkflow } from './diagnosis-workflow.ts';

/**
 * Cancels a run (`POST /runs/{runId}/cancel`, a workflow stopped from the console, Ctrl-C locally): a QUEUED run
 * ends CANCELLED at once and never starts; a RUNNING run is flagged and its invocation stops it within one poll
 * (its audit flushed, its progress kept); an ended run is left as it is. The workflow execution is stopped too when
 * a `workflow` is given (best effort: the flag alone stops the run). Returns the run afterwards, or null if unknown.
 * NOTE: the outcome is used only for a QUEUED run, which never ran: it carries that run's process scorecard (see
 * `neverRanScorecard`), stored in the same conditional write that cancels it.
 */
export async function cancelDiagnosis(
  runId: string,
  deps: { store: Pick<RunStore, 'requestCancel'>; workflow?: Pick<DiagnosisWorkflow, 'stop'> },
): Promise<StoredRun | null> {
  const outcome = cancelled(emptyRunUsage()).outcome;
  const run = await deps.store.requestCancel(runId, { ...outcome, processScorecard: neverRanScorecard(outcome) });
  if (run !== null && deps.workflow !== undefined && !(isEnded(run.status) && run.status !== 'CANCELLED')) {
    await deps.workflow.stop(runId).catch(() => undefined);
  }
  return run;
}
