/**
 * `@diagnosis/core`: one Diagnosis Agent on the AI SDK loop, the harness that enforces its budget and tool protocol
 * whatever the model does, and the strict DiagnosisDraft. `functions/` and `test/` import only from here.
 * NOTE: over 300 lines on purpose: the package's public surface as one list of exports, grouped by folder; splitting
 * it would make two surfaces.
 */

export {
  DEFAULT_TENANT_MAX_OPEN_RUNS,
  MAX_TENANT_MAX_OPEN_RUNS,
  type OpenRuns,
  TENANT_BUSY_RETRY_AFTER_SECONDS,
} from './access/tenant-admission.ts';
/**
 * The caller's input, checked: the query alone (every entry point runs it; the CLI before starting anything), and the
 * whole user message of a run, validated and serialized within the run's limits.
 */
export { prepareDiagnosisInput, validateQuery } from './agent/diagnosis-input.ts';
export { buildDiagnosisInstructions } from './agent/diagnosis-prompt.ts';
export type { DiagnosisDeps, DiagnosisExecution, DiagnosisRequest } from './agent/run-diagnosis.ts';
export { runDiagnosis } from './agent/run-diagnosis.ts';
/** Changes: what each source sends, mapped to an enterprise by the stage file; where each landed against a symptom. */
export {
  CHANGE_PLACEMENTS,
  type ChangeIncident,
  type ChangePlacement,
  placeChange,
} from './change/change-placement.ts';
export {
  boundChangeText,
  boundChangeUrl,
  CHANGE_ID_PATTERN,
  CHANGE_KINDS,
  CHANGE_SOURCES,
  CHANGE_TEXT_CAPS,
  type ChangeKind,
  type ChangeRecord,
  type ChangeSource,
  changeIdOf,
} from './change/change-record.ts';
export {
  CHANGE_SECRET_NAME_PATTERN,
  CHANGE_SERVICE_PATTERN,
  CHANGE_WEBHOOK_ID_PATTERN,
  type ChangeSourceMapping,
  type CloudTrailChangeSource,
  changeSecretNames,
  changeSourcesSchema,
  findCloudTrailSource,
  findGithubSource,
  findWebhookSource,
  GITHUB_REPOSITORY_PATTERN,
  type GithubChangeSource,
  type WebhookChangeSource,
} from './change/change-sources.ts';
export { SEMANTIC_GUARD_MODES, type SemanticGuardMode } from './config/semantic-guard-mode.ts';
export type { AnalysisItem, DiagnosisDraft } from './draft/diagnosis-draft.ts';
export { diagnosisDraftJsonSchema } from './draft/diagnosis-draft.ts';
export type { DraftParseResult } from './draft/parse-diagnosis-draft.ts';
export { parseDiagnosisDraft } from './draft/parse-diagnosis-draft.ts';
export type { PreviousTurn } from './draft/previous-turn.ts';
export type {
  DiagnosisAgentOutputErrorCode,
  DiagnosisExecutionErrorCode,
  DiagnosisInputErrorCode,
} from './errors.ts';
export {
  AGENT_OUTPUT_ERROR_CODES,
  AuditWriteError,
  DiagnosisAgentOutputError,
  DiagnosisError,
  type DiagnosisErrorKind,
  DiagnosisExecutionError,
  DiagnosisInputError,
  DiagnosisRunConflictError,
  DiagnosisRunIdConflictError,
  DiagnosisTenantBusyError,
  DiagnosisWorkflowConflictError,
  EXECUTION_ERROR_CODES,
  INPUT_ERROR_CODES,
  issuePaths,
  RunStoreError,
  type RunStoreErrorCode,
  SettingsError,
  STORE_ERROR_CODES,
  safeErrorName,
  WORKFLOW_CONFLICT_CODES,
  type WorkflowConflictCode,
} from './errors.ts';
export type { JudgeFailure } from './harness/create-judge-harness.ts';
/** The Draft round's JSON mode (by the provider profile's `draftFormat`), for the composition root to wrap its model. */
export { createDraftFormatMiddleware, draftResponseFormat } from './harness/draft-format-middleware.ts';
/** A change a published item names, shown with its link beside the citations (the report's `changes`). */
export type { CitedChange } from './release/change-after-symptom.ts';
export type {
  CancelledReport,
  DiagnosisReport,
  DiagnosisResult,
  FailedReport,
  FallbackReport,
  PublishedReport,
  ReleaseStatus,
  SeenBefore,
} from './release/diagnosis-result.ts';
export type { EvidenceGuardCode, EvidenceGuardResult } from './release/evidence-guard.ts';
/** The EvidenceGuard, taken once per run: its result is what the SemanticGuard judges and the release publishes. */
export { verifyDraftEvidence, verifyExecutionEvidence } from './release/evidence-guard.ts';
export { DEFAULT_JUDGE_LIMITS, type JudgeLimits } from './release/judge/judge-limits.ts';
export type { JudgeVerdicts, Verdict } from './release/judge/judge-verdicts.ts';
/** The SemanticGuard's output schema and strict parser (its verdicts per analysis item and for the conclusion). */
export { judgeVerdictsSchema, parseJudgeVerdicts, VERDICTS } from './release/judge/judge-verdicts.ts';
export { buildSemanticGuardInstructions, SEMANTIC_GUARD_TITLE } from './release/judge/semantic-guard-prompt.ts';
export type { ReleaseDecision } from './release/release-diagnosis.ts';
export { cancelled, releaseDiagnosis } from './release/release-diagnosis.ts';
export { resultOfStoredRun } from './release/result-of-stored-run.ts';
export type { SemanticGuardConfig, SemanticGuardReport, SemanticReview } from './release/semantic-guard.ts';
/** The SemanticGuard: a separate judge call (no tools, its own instructions and budget) and how enforce applies it. */
export { applyVerdicts, reviewDraftSemantics } from './release/semantic-guard.ts';
export { STATUS_WORDS, type StatusWord, statusWordOf } from './release/status-word.ts';
/** The evidence behind a run's citations (tool, canonical input, the observation the model saw, verdicts) and its failure cause. */
export {
  buildRunEvidence,
  CITATION_EVIDENCE_LIMITS,
  type CitationEvidence,
  type CitationEvidenceLimits,
  type CitationVerdict,
  describeStoredToolCall,
  type RunEvidence,
  type RunFailureCause,
} from './report/citation-evidence.ts';
export {
  describeInput,
  describeObservation,
  describeToolCall,
  envelopeInput,
  printable,
} from './report/describe-tool-call.ts';
export { loadAuditScorecard, MAX_SCORED_RECORDS, neverRanScorecard } from './report/load-audit-scorecard.ts';
export { loadRunEvidence, MAX_EVIDENCE_RECORDS } from './report/load-run-evidence.ts';
/** How a run worked (rounds, refused and redundant calls, guard removals, tokens, time), from its audit alone. */
export { buildProcessScorecard, canonicalOf, type ScoredRun } from './report/process-scorecard.ts';
export {
  ENTERPRISE_ID_PATTERN,
  isEnterpriseId,
  isRunId,
  isSessionId,
  isToolCallId,
  MAX_TOOL_CALL_ID_CHARS,
  RUN_ID_PATTERN,
  SESSION_ID_PATTERN,
  TOOL_CALL_ID_PATTERN,
} from './run/ids.ts';
/** The incident window a run's evidence must overlap, set by code (a trigger, or the caller's `window`). */
export {
  buildIncidentWindow,
  type IncidentWindow,
  incidentWindowSchema,
  MAX_INCIDENT_WINDOW_MS,
  overlapsIncidentWindow,
} from './run/incident-window.ts';
export type { ModelFailure, ModelFailureKind, ModelFailureReport } from './run/model-failure.ts';
export { MODEL_FAILURE_KINDS } from './run/model-failure.ts';
export type { BudgetUse, ProcessScorecard } from './run/process-scores.ts';
export type { CheckEvaluation, ProgressCheck, ProgressSnapshot } from './run/progress.ts';
export type { RunContext, RunContextInit, RunUsage } from './run/run-context.ts';
export { createRunContext, emptyRunUsage } from './run/run-context.ts';
export type { RunLimits } from './run/run-limits.ts';
export { DEFAULT_RUN_LIMITS } from './run/run-limits.ts';
export type { DiagnosisRunRequest, RunIdentity } from './run/run-request.ts';
export {
  boundTriggerTitle,
  CUT_MARK,
  INCIDENT_EVENT_KINDS,
  type IncidentEventKind,
  isFiringKind,
  type RunTrigger,
  TRIGGER_SOURCES,
  TRIGGER_TEXT_CAPS,
  type TriggerSource,
} from './run/run-trigger.ts';
export type { StopReason } from './run/stop-reason.ts';
export { STOP_REASONS } from './run/stop-reason.ts';
export { DEFAULT_TIME_ZONE, formatZonedIso, isTimeZone } from './run/zoned-time.ts';
export {
  ABANDON_MARGIN_MS,
  type AbandonmentRule,
  abandonedAt,
  closeAbandonedRun,
  HEARTBEAT_MS,
  isAbandoned,
} from './service/abandonment.ts';
export { buildPreviousTurn } from './service/build-previous-turn.ts';
export { cancelDiagnosis } from './service/cancel-diagnosis.ts';
export { CANCEL_POLL_MS } from './service/cancel-watch.ts';
/** `query_logs` over the run's enterprise's change stream, the service `changes`: each change placed by code. */
export {
  CHANGE_STREAM_SERVICE,
  type ChangeStreamFilter,
  type ChangeStreamLogsOptions,
  createChangeStreamLogs,
  parseChangeStreamService,
} from './service/change-stream-logs.ts';
/**
 * The request to diagnose at a process boundary (the Diagnose task's payload, the `POST /diagnoses` body): parsed
 * and its ids checked once, then trusted downstream by its type (the service's `…Checked…` entries take it).
 */
export {
  type Checked,
  type CheckedRunRequest,
  type CheckedWorkflowRequest,
  parseStartRequest,
  parseWorkflowRequest,
} from './service/checked-run-request.ts';
/** The one way a run is closed FAILED (the reason and the rules as parameters), and the close of a QUEUED run. */
export {
  type ClosableRun,
  type CloseReason,
  type CloseRules,
  closeQueuedRun,
  closeRun,
} from './service/close-run.ts';
export type { DiagnosisWorkflow } from './service/diagnosis-workflow.ts';
export type { DiagnoseCommand, DiagnosisServiceDeps } from './service/execute-diagnosis-run.ts';
export { executeCheckedDiagnosisRun, executeDiagnosisRun } from './service/execute-diagnosis-run.ts';
export {
  handleIncidentEvent,
  IncidentContendedError,
  type IncidentDeps,
  type IncidentEvent,
  type IncidentOutcome,
} from './service/handle-incident-event.ts';
/** Feedback masked with its run's masking (secrets redacted, the run's pseudonyms), new pseudonyms in the run's map. */
export { type FeedbackMasking, type MaskedFeedback, maskFeedback } from './service/mask-feedback.ts';
/** A triggered run's question and title masked with the run's key, their values in the run's map (issue 32). */
export { type IncidentMasking, IncidentMaskingError } from './service/mask-incident-texts.ts';
/** Past incidents: a rated run remembered or retracted, and `lookup_knowledge` with them ranked beside the runbooks. */
export {
  createPastIncidentKnowledge,
  DEFAULT_PAST_INCIDENT_RETRIEVAL,
  type PastIncidentKnowledgeOptions,
  type PastIncidentRetrieval,
  pastIncidentHit,
  rankPastIncidents,
} from './service/past-incident-knowledge.ts';
/** A responder's verdict on a run (idempotent per caller, re-ratings kept): never evidence for any later run. */
export {
  callerKeyOf,
  feedbackView,
  parseFeedbackInput,
  type RecordedFeedback,
  type RecordFeedbackDeps,
  recordFeedback,
} from './service/record-feedback.ts';
export {
  applyRatingToMemory,
  type PastIncidentChange,
  type PastIncidentRetention,
} from './service/remember-past-incident.ts';
export {
  MAX_START_WAIT_MS,
  type StartDiagnosisDeps,
  startCheckedDiagnosis,
  startDiagnosis,
} from './service/start-diagnosis.ts';
export { MAX_SWEEP_RUNS, type SweepDeps, type SweepReport, sweepOpenRuns } from './service/sweep-open-runs.ts';
export type {
  AuditHook,
  ContentSource,
  ModelRole,
  ModelStepEvent,
  ToolDisposition,
  ToolInvocationEvent,
} from './store/audit-hook.ts';
export { MAX_AUDIT_TEXT_CHARS } from './store/audit-hook.ts';
export type { AuditWriter, RunWriteBudget } from './store/audit-writer.ts';
export {
  FEEDBACK_LIMITS,
  FEEDBACK_VERDICTS,
  type FeedbackInput,
  type FeedbackStore,
  type FeedbackVerdict,
  type RunFeedback,
} from './store/feedback-store.ts';
export {
  PAST_INCIDENT_LIMITS,
  type PastIncident,
  type PastIncidentPageOptions,
  type PastIncidentStore,
  REMEMBERED_VERDICTS,
  RETRACTION_REASONS,
  type RememberedVerdict,
  type RetractionReason,
} from './store/past-incident-store.ts';
export type {
  LiveProgress,
  PublishedResult,
  RunOutcome,
  RunRecord,
  RunStatus,
  RunStore,
  StoredPseudonymBatch,
  StoredReasoning,
  StoredRun,
  StoredRunLimits,
  VerifiedCitation,
} from './store/run-store.ts';
export { isEnded, RUN_STATUSES } from './store/run-store.ts';
/** A listener beside the run's store: the audit events in the harness's own order, for a live view. */
export { type AuditListener, teeAuditStore } from './store/tee-audit-store.ts';
export type {
  AdapterResult,
  EvidenceAdapter,
  EvidenceAdapters,
  EvidenceErrorCode,
  KnowledgeData,
  KnowledgeHit,
  KnowledgeInput,
  LogLevel,
  LogLine,
  LogsData,
  LogsInput,
  MysqlCell,
  MysqlData,
  MysqlInput,
  MysqlParamDescriptor,
  MysqlParamType,
  MysqlQueryDescriptor,
  ToolCallRequest,
  ToolName,
} from './tools/evidence-adapter.ts';
export { EVIDENCE_ERROR_CODES, TOOL_NAMES } from './tools/evidence-adapter.ts';
/** What the model may see of one result: each field's bound (a log message's characters, the lines of a result). */
export { PROJECTION_LIMITS } from './tools/evidence-projection.ts';
/**
 * Masking at the tool boundary (docs/masking.md): secrets redacted, identifiers pseudonymised per run, the way back
 * for tool arguments, and the sealed pseudonym map that only the reveal route opens.
 */
export { type CustomRules, loadCustomRules } from './tools/masking/custom-patterns.ts';
export {
  createMaskingSession,
  MASKING_MODES,
  type MaskingConfig,
  type MaskingMode,
  type MaskingSession,
  type RecordedReplay,
} from './tools/masking/masking-session.ts';
export { DEVELOPMENT_MASKING_SECRET } from './tools/masking/pseudonym-keys.ts';
export { openPseudonymBatches, type PseudonymBatchEvent, sealNewPseudonyms } from './tools/masking/pseudonym-map.ts';
export { PSEUDONYM_PATTERN, type PseudonymEntry, revealText } from './tools/masking/reveal-text.ts';
export type { EvidenceStatus, Observation, RejectionCode } from './tools/observation.ts';
export { MAX_OBSERVATION_BYTES } from './tools/observation.ts';
export { createToolInputParser, type ParsedEnvelope } from './tools/tool-inputs.ts';
/** Triggers: the stage file's mappings, the linear `*` glob, the system's question templates. */
export { matchesGlob } from './trigger/glob-match.ts';
export {
  buildIncidentQuery,
  DEFAULT_QUERY_TEMPLATES,
  type IncidentQueryFacts,
  incidentQueryFits,
  MIN_REASON_BYTES,
  QUERY_PLACEHOLDERS,
  QUERY_TEXT_CAPS,
} from './trigger/incident-query.ts';
export {
  type AlarmOrigin,
  type AlertmanagerMapping,
  type CloudWatchMapping,
  findAlertmanagerMapping,
  findCloudWatchMapping,
  findPagerDutyMapping,
  mappingsOverQueryLimit,
  type PagerDutyMapping,
  type TriggerMapping,
  triggerMappingsSchema,
  WEBHOOK_SECRET_NAME_PATTERN,
  webhookSecretNames,
} from './trigger/trigger-mappings.ts';
