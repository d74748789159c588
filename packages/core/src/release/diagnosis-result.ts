import type { ModelFailureReport } from '../run/model-failure.ts';
import type { ProgressSnapshot } from '../run/progress.ts';
import type { RunUsage } from '../run/run-context.ts';
import type { StopReason } from '../run/stop-reason.ts';
import type { PublishedResult } from '../store/run-store.ts';
import type { SemanticGuardReport } from './semantic-guard.ts';

/** How a release ends: what the caller receives (`DiagnosisResult.status`). */
export type ReleaseStatus = 'PUBLISHED' | 'FALLBACK' | 'FAILED' | 'CANCELLED';

/** What a caller receives for a published diagnosis: the Draft and the checks it cites. */
export interface PublishedReport extends PublishedResult {
  kind: 'DIAGNOSIS';
  /** The SemanticGuard's verdicts (enforce or shadow); absent when it was off or had nothing to judge. */
  semantic_guard?: SemanticGuardReport;
}

/** The fixed Chinese report of a run that produced nothing publishable. */
export interface FallbackReport {
  kind: 'FALLBACK';
  title: string;
  message: string;
  stop_reason: StopReason | null;
  /** The code of the check the Draft failed (`DRAFT_NOT_JSON`, `GUARD_UNKNOWN_CITATION`, …); absent on a stop. */
  error_code?: string;
  reason: string;
  limitations: { checked_scope: string[]; missing_info: string[] };
  /** The SemanticGuard's verdicts or failure, when it judged the Draft (SEMANTIC_GUARD_REJECTED / _FAILED). */
  semantic_guard?: SemanticGuardReport;
}

/**
 * The report of a run with no published result: a fixed Chinese message that names the cause by its code, the code,
 * and for a failure of the model endpoint (MODEL_FAILED, MODEL_TIMEOUT) its status and error class.
 */
export interface FailedReport {
  kind: 'FAILED';
  message: string;
  error_code: string;
  model_failure?: ModelFailureReport;
}

/** A run someone stopped: nothing is published; what it checked stays in the audit trail and its progress. */
export interface CancelledReport {
  kind: 'CANCELLED';
  message: string;
  stop_reason: 'CANCELLED';
}

/** The report of a result, told apart by its `kind`. */
export type DiagnosisReport = PublishedReport | FallbackReport | FailedReport | CancelledReport;

/** The public result of one diagnosis run (the Lambda's answer). */
export interface DiagnosisResult {
  runId: string;
  status: ReleaseStatus;
  report: DiagnosisReport;
  stopReason: StopReason | null;
  /** The soft stop that ended collection when `stopReason` names a later event (e.g. STOP_IGNORED); else absent. */
  collectionStopReason?: StopReason;
  progress: ProgressSnapshot | null;
  usage: RunUsage;
}
