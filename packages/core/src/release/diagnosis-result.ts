import type { ModelFailureReport } from '../run/model-failure.ts';
import type { ProgressSnapshot } from '../run/progress.ts';
import type { RunUsage } from '../run/run-context.ts';
import type { StopReason } from '../run/stop-reason.ts';
import type { RememberedVerdict } from '../store/past-incident-store.ts';
import type { PublishedResult } from '../store/run-store.ts';
import type { CitedChange } from './change-after-symptom.ts';
import type { EvidenceGuardRemoval } from './evidence-guard.ts';
import type { SemanticGuardReport } from './semantic-guard.ts';

/** How a release ends: what the caller receives (`DiagnosisResult.status`). */
export type ReleaseStatus = 'PUBLISHED' | 'FALLBACK' | 'FAILED' | 'CANCELLED';

/** What a caller receives for a published diagnosis: the Draft and the checks it cites. */
export interface PublishedReport extends PublishedResult {
  kind: 'DIAGNOSIS';
  /** The SemanticGuard's verdicts (enforce or shadow); absent when it was off or had nothing to judge. */
  semantic_guard?: SemanticGuardReport;
  /** The items the EvidenceGuard removed before the rest was checked; absent when it removed none. */
  evidence_guard?: EvidenceGuardReport;
  /**
   * "Seen before": the past runs whose memory the agent's lookups returned, when it was concluded and how it was
   * rated. NOTE: leads the agent looked at, never evidence: kept apart from `citations`; absent when there were none.
   */
  seen_before?: SeenBefore[];
  /**
   * The changes the published items name among the change-stream checks they cite, each with its link and where code
   * placed it against the symptom; absent when they name none.
   */
  changes?: CitedChange[];
}

/** What the EvidenceGuard removed: each item's index in the agent's Draft and the stable reason. */
interface EvidenceGuardReport {
  removed: EvidenceGuardRemoval[];
}

/** One past run the agent's lookups returned as a past incident (by the check that returned it). */
export interface SeenBefore {
  run_id: string;
  occurred_at: string;
  rating: RememberedVerdict;
  /** The lookups (`tool_call_id`) that returned it. */
  tool_call_ids: string[];
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
  /** The items the EvidenceGuard removed before the rest failed its check (indexes and codes only: no model text). */
  evidence_guard?: EvidenceGuardReport;
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
