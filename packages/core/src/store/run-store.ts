// NOTE: over 300 lines on purpose: one port, the run store, with the types of what it stores; a port and its records
// stay together.
import type { OpenRuns } from '../access/tenant-admission.ts';
import type { MaskingMode } from '../config/masking-mode.ts';
import type { DiagnosisDraft } from '../draft/diagnosis-draft.ts';
import type { IncidentWindow } from '../run/incident-window.ts';
import type { ModelFailure } from '../run/model-failure.ts';
import type { ProcessScorecard } from '../run/process-scores.ts';
import type { ProgressSnapshot } from '../run/progress.ts';
import type { RunUsage } from '../run/run-context.ts';
import type { RunLimits } from '../run/run-limits.ts';
import type { DiagnosisRunRequest } from '../run/run-request.ts';
import type { RunTrigger } from '../run/run-trigger.ts';
import type { StopReason } from '../run/stop-reason.ts';
import type { ToolName } from '../tools/evidence-adapter.ts';
import type { PseudonymBatchEvent } from '../tools/masking/pseudonym-map.ts';
import type { ContentSource, ModelRole, ToolDisposition } from './audit-hook.ts';

/**
 * A run's life: QUEUED (accepted, waiting for the workflow), RUNNING, then one of SUCCEEDED, FALLBACK, FAILED or
 * CANCELLED. A QUEUED run that is cancelled never starts.
 */
export const RUN_STATUSES = Object.freeze([
  'QUEUED',
  'RUNNING',
  'SUCCEEDED',
  'FALLBACK',
  'FAILED',
  'CANCELLED',
] as const);
export type RunStatus = (typeof RUN_STATUSES)[number];
export type EndedRunStatus = Exclude<RunStatus, 'QUEUED' | 'RUNNING'>;

export function isEnded(status: RunStatus): status is EndedRunStatus {
  return status !== 'QUEUED' && status !== 'RUNNING';
}

/** One citation of a published Draft, verified against the run's own READY checks. */
export interface VerifiedCitation {
  tool_call_id: string;
  tool_name: ToolName;
  empty: boolean;
}

/** What a SUCCEEDED run published: the Draft and the checks its analysis cites. */
export interface PublishedResult {
  draft: DiagnosisDraft;
  citations: VerifiedCitation[];
}

/** What readers see of a RUNNING run: its usage and progress so far. */
export interface LiveProgress {
  usage: RunUsage;
  progress: ProgressSnapshot;
  /** The run's deadline (epoch ms), so readers can tell the time left. */
  deadlineAt?: number;
}

/** How a run ended, written once by `completeRun`. */
export interface RunOutcome {
  status: EndedRunStatus;
  stopReason: StopReason | null;
  /** The soft stop that ended collection when `stopReason` names a later event (see `DiagnosisExecution`). */
  collectionStopReason?: StopReason | null;
  errorCode: string | null;
  /** What the model endpoint did when the run failed on it (MODEL_FAILED, MODEL_TIMEOUT); absent or null otherwise. */
  modelFailure?: ModelFailure | null;
  usage: RunUsage;
  progress: ProgressSnapshot | null;
  /** The parsed Draft, published or not (a guard failure keeps it for the audit). */
  draft: DiagnosisDraft | null;
  /** Only for SUCCEEDED runs. */
  publishedResult: PublishedResult | null;
  /** The report returned to the caller, kept so a replayed invocation returns exactly the same answer. */
  report: unknown;
  /** The limits and deadline the run had, so its budget use can be read back; absent for runs that never ran. */
  limits?: RunLimits | null;
  deadlineAt?: number | null;
  /** The masking the run ran with (`identifiers` or `secrets-only`); absent for runs that never ran. */
  masking?: MaskingMode | null;
  /** How the run worked, computed from its audit at completion (`buildProcessScorecard`); absent: none computed. */
  processScorecard?: ProcessScorecard | null;
  /**
   * The services the run's executed `query_logs` checks asked, lower-cased, first asked first, at most five (a past
   * incident is tagged with them); absent: none.
   */
  services?: string[];
}

/**
 * The limits a stored run had; runs stored before the per-request model time limit or the tool-call flood limits
 * existed have none of those.
 */
export type StoredRunLimits = Omit<RunLimits, LaterRunLimit> & Partial<Pick<RunLimits, LaterRunLimit>>;
type LaterRunLimit = 'modelRequestTimeoutMs' | 'maxToolCallsPerRound' | 'maxRejectedToolCalls';

export interface StoredRun {
  entity: 'run';
  runId: string;
  sessionId: string;
  enterpriseId: string;
  kind: 'DIAGNOSIS';
  status: RunStatus;
  query: string;
  continueSession: boolean;
  /** What started the run when an alarm or a webhook did; null for a caller's run and for older runs. */
  trigger: RunTrigger | null;
  /** The incident window its evidence must overlap; null when it has none (and for older runs). */
  window: IncidentWindow | null;
  stopReason: StopReason | null;
  /** The soft stop that ended collection when `stopReason` names a later event; null otherwise and for older runs. */
  collectionStopReason: StopReason | null;
  errorCode: string | null;
  /** What the model endpoint did when the run failed on it; null otherwise and for runs stored before it existed. */
  modelFailure: ModelFailure | null;
  usage: RunUsage | null;
  progress: ProgressSnapshot | null;
  draft: DiagnosisDraft | null;
  /** The published conclusion, read out beside the query for quick reading; not reasoning. */
  conclusion: string | null;
  publishedResult: PublishedResult | null;
  report: unknown;
  /** When someone asked to cancel the run (a QUEUED one is then CANCELLED at once; a RUNNING one stops soon). */
  cancelRequestedAt: string | null;
  limits: StoredRunLimits | null;
  deadlineAt: string | null;
  /**
   * The masking the run ran with; null for runs that never ran and runs stored before masking existed (the store
   * always sets it; optional so a record built elsewhere need not name it).
   */
  masking?: MaskingMode | null;
  /**
   * The workflow execution that owns the run (ARN), or null (local runs, runs stored before it existed). Only that
   * execution's invocations may take the run, and only its status-change events may close or cancel it.
   */
  executionArn: string | null;
  /** The last sign of life of the invocation running it, or null (QUEUED, or stored before heartbeats existed). */
  heartbeatAt: string | null;
  /**
   * How the run worked, computed from its audit when its own invocation completed it, or from its stored audit by
   * whatever else closed it (`closeRun`, the cancel of a QUEUED run); null for runs stored before it existed. NOTE:
   * optional in the type only, so hand-built runs need not name it; the store always reads it back (null or a card).
   */
  processScorecard?: ProcessScorecard | null;
  /** The services its `query_logs` checks asked (see `RunOutcome.services`); empty for older runs. Optional in type only. */
  services?: string[];
  createdAt: string;
  endedAt: string | null;
}

export interface StoredStep {
  entity: 'agent_step';
  runId: string;
  stepNumber: number;
  /** AGENT for a round of the agent's loop, JUDGE for the SemanticGuard's call. */
  role: ModelRole;
  modelId: string;
  finishReason: string;
  inputTokens: number;
  outputTokens: number;
  reasoningTokens: number | null;
  cachedInputTokens: number | null;
  /** The token counts are the harness's estimate: the provider reported no usage for the round. */
  usageEstimated: boolean;
  reasoningAvailable: boolean;
  contentSource: ContentSource;
  contentBytes: number;
  /** The tool calls the round asked for (at most the first 100 are listed; `toolCallsTotal` counts them all). */
  toolCalls: { toolCallId: string; toolName: string }[];
  toolCallsTotal: number;
  startedAt: string;
  endedAt: string;
}

export interface StoredReasoning {
  entity: 'agent_reasoning_audit';
  runId: string;
  stepNumber: number;
  role: ModelRole;
  reasoningContent: string;
  assistantText: string;
  contentSource: ContentSource;
  contentBytes: number;
}

/** One batch of a run's pseudonym map as stored: still sealed with the run's map key. */
export interface StoredPseudonymBatch {
  entity: 'pseudonym_map';
  runId: string;
  sequence: number;
  count: number;
  sealed: PseudonymBatchEvent['sealed'];
}

export interface StoredToolInvocation {
  entity: 'tool_invocation';
  runId: string;
  toolCallId: string;
  toolName: ToolName;
  stepNumber: number;
  disposition: ToolDisposition;
  status: 'READY' | 'ERROR' | null;
  empty: boolean;
  code: string | null;
  input: unknown;
  inputTruncated: boolean;
  /** The observation the model saw; its stored text when that text does not parse (cut or damaged). */
  observation: unknown;
  /** The adapter's data; a JSON text cut at the cap when `resultTruncated`. */
  result: unknown;
  resultTruncated: boolean;
  errorDetail: string | null;
  startedAt: string;
  endedAt: string;
}

/** A run that may feed a follow-up: a DIAGNOSIS that SUCCEEDED with a published result. */
export type PublishedDiagnosis = StoredRun & {
  kind: 'DIAGNOSIS';
  status: 'SUCCEEDED';
  publishedResult: PublishedResult;
};

export function isPublishedDiagnosis(run: StoredRun): run is PublishedDiagnosis {
  return run.kind === 'DIAGNOSIS' && run.status === 'SUCCEEDED' && run.publishedResult !== null;
}

/** The records of a run's audit trail that any auditor may read: never raw reasoning. */
export type RunRecord = StoredRun | StoredStep | StoredToolInvocation;

export type StartRunResult = { started: true; run: StoredRun } | { started: false; run: StoredRun };

/**
 * The request a run was started for (a replay of the runId must carry exactly the same one), and what triggered it.
 */
export type StartRunInput = DiagnosisRunRequest & { trigger?: RunTrigger };

export interface PageOptions {
  cursor?: string;
  limit?: number;
}

/**
 * Port: the lifecycle of runs and the way back to them. `startRun` is idempotent per runId (a replay reports the
 * stored run instead of starting a second one, and the caller compares the request); `completeRun` happens once;
 * `findPreviousRun` selects the run a follow-up may continue from. The store selects; the service builds the
 * PreviousTurn from what it selected. NOTE: its writes are immediate and conditional; the run's audit trail, which
 * it reads back (`listRunRecords`, `listReasoning`, `listPseudonyms`), is written by the `AuditWriter` on the same
 * table, whose `flush` the run awaits before `completeRun`.
 */
/** The request a QUEUED run must have been stored with to be claimed (see `claimQueuedRun`). */
export interface ClaimedRequest {
  enterpriseId: string;
  sessionId: string;
  query: string;
  continueSession: boolean;
}

export interface RunStore {
  /**
   * Puts a new RUNNING run (with its deadline, so a crashed one can be told from a live one, and the execution that
   * owns it); idempotent per runId. Admitted like `queueRun`.
   */
  startRun(input: StartRunInput, options?: { deadlineAt?: number; executionArn?: string }): Promise<StartRunResult>;
  /**
   * Accepts a run to be started later by the workflow execution `executionArn` (status QUEUED); idempotent per runId
   * like `startRun`. NOTE: admission control — a new run is admitted only while its enterprise has fewer open
   * (QUEUED or RUNNING) runs than the store's bound, in the same transaction that writes it; otherwise nothing is
   * written and it rejects with `DiagnosisTenantBusyError`. A replay of an existing runId is never counted twice.
   */
  queueRun(input: StartRunInput, options?: { executionArn?: string }): Promise<StartRunResult>;
  /**
   * Takes a QUEUED run (QUEUED → RUNNING, only if no cancel was asked for); returns the run as it is afterwards, or
   * null when it was not QUEUED (or is gone, or is not `owner`'s). `owner`: the execution of the invocation that
   * claims it to run it — a string takes only a run that execution owns (or that has no owner), null only a run with
   * no owner (a local run); absent, ownership is not checked (the close paths, which checked it themselves).
   * `request`: only a run stored with exactly this request (enterprise, session, query, continuation), checked in the
   * same conditional write, so a run whose request differs is left as it is (null).
   */
  claimQueuedRun(
    runId: string,
    deadlineAt: number,
    options?: { owner?: string | null; request?: ClaimedRequest },
  ): Promise<StoredRun | null>;
  /** A sign of life of the invocation running it (`heartbeat_at`); false once the run is no longer RUNNING. */
  heartbeat(runId: string): Promise<boolean>;
  /** Every enterprise's open runs, as the admission items hold them: what the sweeper checks. */
  listOpenRuns(): Promise<OpenRuns[]>;
  /** Drops a run id from its enterprise's open runs when the run itself is no longer open (a repair). */
  forgetOpenRun(enterpriseId: string, runId: string): Promise<void>;
  /**
   * Asks a run to stop: a QUEUED run ends at once with `queuedOutcome` (CANCELLED), a RUNNING run gets
   * `cancelRequestedAt` and its invocation stops it; an ended run is left as it is. Returns the run afterwards.
   */
  requestCancel(runId: string, queuedOutcome: RunOutcome): Promise<StoredRun | null>;
  /** Whether a cancel was asked for: one small consistent read (the invocation polls it). */
  isCancelRequested(runId: string): Promise<boolean>;
  /** The progress of a RUNNING run, for readers while it runs; a no-op once it ended. */
  updateProgress(runId: string, progress: LiveProgress): Promise<void>;
  /**
   * Ends a RUNNING run with its outcome and frees its place among its enterprise's open runs (one transaction).
   * Rejects with RunStoreError `RUN_ITEM_TOO_LARGE` before writing when the completed item would not fit, and with
   * `RUN_NOT_RUNNING` when the run is not RUNNING — or, with `ifHeartbeatAt`, when its heartbeat moved since it was
   * read (a sweeper closes only the run it judged abandoned).
   */
  completeRun(runId: string, outcome: RunOutcome, options?: { ifHeartbeatAt?: string | null }): Promise<void>;
  getRun(runId: string): Promise<StoredRun | null>;
  /** The run item, its steps and its tool invocations, in key order: never raw reasoning. */
  listRunRecords(runId: string, options?: PageOptions): Promise<{ records: RunRecord[]; cursor: string | null }>;
  /** The run's raw reasoning and assistant texts, one record per round, from their own partition. */
  listReasoning(runId: string, options?: PageOptions): Promise<{ records: StoredReasoning[]; cursor: string | null }>;
  /** The run's pseudonym map, sealed, one record per batch, from its own partition (the reveal route only). */
  listPseudonyms(
    runId: string,
    options?: PageOptions,
  ): Promise<{ records: StoredPseudonymBatch[]; cursor: string | null }>;
  /**
   * Adds a sealed batch to an ended run's pseudonym map (the pseudonyms a responder's feedback created), kept as long
   * as the run's map (from `runCreatedAt`). NOTE: conditional on its sequence being free, so concurrent writers never
   * overwrite each other's batch: false when it is taken (read the map again and take the next one).
   */
  appendPseudonyms(batch: PseudonymBatchEvent, runCreatedAt: string): Promise<boolean>;
  /**
   * The newest run of this enterprise's session that is a published diagnosis (see {@link isPublishedDiagnosis}), or
   * null. NOTE: only runs whose enterprise and session ids equal the arguments exactly: a session id is the caller's
   * choice, and a follow-up must never see another tenant's run.
   */
  findPreviousRun(enterpriseId: string, sessionId: string): Promise<StoredRun | null>;
}
