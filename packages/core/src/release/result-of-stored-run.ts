import type { ProgressSnapshot } from '../run/progress.ts';
import { emptyRunUsage, type RunUsage } from '../run/run-context.ts';
import type { StopReason } from '../run/stop-reason.ts';
import type { DiagnosisReport, DiagnosisResult, ReleaseStatus } from './diagnosis-result.ts';

/**
 * The public result of a stored, finished run (a replayed invocation answers with exactly this). NOTE: apart from the
 * release policy: it decides nothing, it reads back what a release (or a close) already stored.
 */
export function resultOfStoredRun(run: {
  runId: string;
  status: string;
  report: unknown;
  stopReason: StopReason | null;
  collectionStopReason?: StopReason | null;
  progress: ProgressSnapshot | null;
  usage: RunUsage | null;
}): DiagnosisResult {
  const status: ReleaseStatus =
    run.status === 'SUCCEEDED'
      ? 'PUBLISHED'
      : run.status === 'FALLBACK' || run.status === 'CANCELLED'
        ? run.status
        : 'FAILED';
  return {
    runId: run.runId,
    status,
    report: run.report as DiagnosisReport,
    stopReason: run.stopReason,
    ...(run.collectionStopReason === undefined || run.collectionStopReason === null
      ? {}
      : { collectionStopReason: run.collectionStopReason }),
    progress: run.progress,
    usage: run.usage ?? emptyRunUsage(),
  };
}
