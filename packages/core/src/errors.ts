import type { ModelFailure } from './run/model-failure.ts';
import type { ProgressSnapshot } from './run/progress.ts';
import type { StopReason } from './run/stop-reason.ts';

/**
 * The service's one error taxonomy. Every error it raises on purpose is a {@link DiagnosisError}: a stable `code`
 * from an `as const` list, a `kind` that says whose fault it is, and a message that is safe to show (never a value,
 * a path, a secret or another error's text; the original error, if any, is only in `cause`). The handlers map `kind`
 * and `code` to an HTTP status and a Step Functions error name in one table.
 *
 * - caller: the request (or the event carrying it) was refused; nothing was written;
 * - agent-output: the model's final text broke the Draft contract;
 * - execution: the run failed closed for a reason that is neither the caller's nor a controlled stop;
 * - conflict: the runId is busy or belongs to another request;
 * - store: a refused store operation or a failed audit write;
 * - settings: the deployment's configuration is invalid (names the keys only).
 */
export type DiagnosisErrorKind = 'caller' | 'agent-output' | 'execution' | 'conflict' | 'store' | 'settings';

export abstract class DiagnosisError extends Error {
  abstract readonly code: string;
  abstract readonly kind: DiagnosisErrorKind;
}

/** Why a caller's request was refused (also the read routes' refusals). */
export const INPUT_ERROR_CODES = Object.freeze([
  'QUERY_BLANK',
  'QUERY_TOO_LARGE',
  'QUERY_INVALID',
  'PREVIOUS_TURN_INVALID',
  'PREVIOUS_TURN_TOO_LARGE',
  'INPUT_TOO_LARGE',
  'DEADLINE_TOO_SHORT',
  'INVALID_IDENTIFIER',
  'INVALID_REQUEST',
  'MALFORMED_EVENT',
  'BODY_MISSING',
  'BODY_NOT_JSON',
  'BODY_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'METHOD_NOT_ALLOWED',
  'FORBIDDEN',
  'FORBIDDEN_TENANT',
  'INVALID_RUN_ID',
  'INVALID_QUERY_PARAMETER',
  'INVALID_LIMIT',
  'INVALID_CURSOR',
  'RUN_NOT_FOUND',
  'INVALID_FEEDBACK',
  'RUN_NOT_ENDED',
  'FEEDBACK_LIMIT',
  'FEEDBACK_CONFLICT',
  'CALLER_UNKNOWN',
  'MASKING_UNAVAILABLE',
  'PAST_INCIDENT_NOT_FOUND',
] as const);
export type DiagnosisInputErrorCode = (typeof INPUT_ERROR_CODES)[number];

/** Caller error: nothing was sent to the model and nothing was written. The message is safe to show to the caller. */
export class DiagnosisInputError extends DiagnosisError {
  override readonly name = 'DiagnosisInputError';
  readonly kind = 'caller';
  readonly code: DiagnosisInputErrorCode;

  constructor(code: DiagnosisInputErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

export const AGENT_OUTPUT_ERROR_CODES = Object.freeze([
  'DRAFT_BLANK',
  'DRAFT_NOT_JSON',
  'DRAFT_SCHEMA',
  'DRAFT_TOO_LARGE',
] as const);
export type DiagnosisAgentOutputErrorCode = (typeof AGENT_OUTPUT_ERROR_CODES)[number];

/**
 * Model misbehaviour: the final text broke the Draft contract. The text itself is discarded (never repaired, never
 * re-asked); `progress` is the bounded snapshot when the run had READY checks, else null (nothing is fabricated).
 */
export class DiagnosisAgentOutputError extends DiagnosisError {
  override readonly name = 'DiagnosisAgentOutputError';
  readonly kind = 'agent-output';
  readonly code: DiagnosisAgentOutputErrorCode;
  readonly progress: ProgressSnapshot | null;
  /** The soft stop that had ended collection before the final round wrote this output, or null. */
  readonly collectionStopReason: StopReason | null;

  constructor(
    code: DiagnosisAgentOutputErrorCode,
    progress: ProgressSnapshot | null,
    collectionStopReason: StopReason | null = null,
  ) {
    super(`the final model output is not a valid DiagnosisDraft (${code})`);
    this.code = code;
    this.progress = progress;
    this.collectionStopReason = collectionStopReason;
  }
}

export const EXECUTION_ERROR_CODES = Object.freeze([
  'MODEL_FAILED',
  'MODEL_TIMEOUT',
  'AUDIT_FAILED',
  'INTERNAL',
] as const);
export type DiagnosisExecutionErrorCode = (typeof EXECUTION_ERROR_CODES)[number];

const EXECUTION_MESSAGES: Record<DiagnosisExecutionErrorCode, string> = {
  MODEL_FAILED: 'the model call failed; the run was not retried',
  MODEL_TIMEOUT: 'the model did not answer within the per-request time limit; the run was stopped',
  AUDIT_FAILED: 'the audit hook failed; the run was stopped',
  INTERNAL: 'the diagnosis failed unexpectedly',
};

/**
 * System error: the run failed closed. `cause` keeps the original error for the operator's own diagnostics; the
 * message is fixed per code and never contains the cause's text. `modelFailure` (MODEL_FAILED, MODEL_TIMEOUT) says
 * what the model endpoint did (its HTTP status, the error class, a network code): safe to store and show.
 */
export class DiagnosisExecutionError extends DiagnosisError {
  override readonly name = 'DiagnosisExecutionError';
  readonly kind = 'execution';
  readonly code: DiagnosisExecutionErrorCode;
  readonly modelFailure: ModelFailure | null;

  constructor(code: DiagnosisExecutionErrorCode, options?: { cause?: unknown; modelFailure?: ModelFailure }) {
    super(EXECUTION_MESSAGES[code], options === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.modelFailure = options?.modelFailure ?? null;
  }
}

/** The run is being diagnosed by another invocation right now. */
export class DiagnosisRunConflictError extends DiagnosisError {
  override readonly name = 'DiagnosisRunConflictError';
  readonly kind = 'conflict';
  readonly code = 'RUN_IN_PROGRESS';

  constructor() {
    super('the run is already running');
  }
}

/**
 * The runId belongs to another request (another enterprise, session, query or `continueSession`): a runId is bound
 * to the request that created it, and its stored result is never returned to a different one.
 */
export class DiagnosisRunIdConflictError extends DiagnosisError {
  override readonly name = 'DiagnosisRunIdConflictError';
  readonly kind = 'conflict';
  readonly code = 'RUN_ID_CONFLICT';

  constructor() {
    super('the run id is already used by a different request');
  }
}

/**
 * The enterprise is at one of its caps, and nothing was written: `running` — every slot of its lease is held (runs in
 * progress, TENANT_MAX_CONCURRENT_RUNS); `open` — it has its maximum of QUEUED or RUNNING runs (admission control,
 * TENANT_MAX_OPEN_RUNS). A workflow waits and retries on this name; an HTTP caller gets 429 with `Retry-After`.
 */
export class DiagnosisTenantBusyError extends DiagnosisError {
  override readonly name = 'DiagnosisTenantBusyError';
  readonly kind = 'conflict';
  readonly code = 'TENANT_BUSY';
  readonly cap: 'running' | 'open';

  constructor(cap: 'running' | 'open' = 'running') {
    super(
      cap === 'open'
        ? 'the enterprise already has its maximum of open diagnoses; retry later'
        : 'the enterprise already has its maximum of diagnoses in progress',
    );
    this.cap = cap;
  }
}

/** Why a run's workflow execution could not be started under its name (the runId). */
export const WORKFLOW_CONFLICT_CODES = Object.freeze([
  'WORKFLOW_EXECUTION_CONFLICT',
  'WORKFLOW_EXECUTION_ENDED',
] as const);
export type WorkflowConflictCode = (typeof WORKFLOW_CONFLICT_CODES)[number];

const WORKFLOW_CONFLICT_MESSAGES: Record<WorkflowConflictCode, string> = {
  WORKFLOW_EXECUTION_CONFLICT: 'a workflow execution of another request already has this run id; use a new run id',
  WORKFLOW_EXECUTION_ENDED: 'the workflow execution of this run has already ended; the run was closed',
};

/**
 * The run's workflow execution name (its runId) is taken: by an execution of another request or another state
 * machine (`WORKFLOW_EXECUTION_CONFLICT`; the run is closed FAILED `WORKFLOW_START_FAILED`), or by this run's own
 * execution, which has already ended (`WORKFLOW_EXECUTION_ENDED`; the run is closed FAILED `WORKFLOW_FAILED`).
 * `runErrorCode` is the code the run is closed with. An HTTP caller gets 409: the same request again reads the
 * closed run; a new run id starts afresh.
 */
export class DiagnosisWorkflowConflictError extends DiagnosisError {
  override readonly name = 'DiagnosisWorkflowConflictError';
  readonly kind = 'conflict';
  readonly code: WorkflowConflictCode;
  readonly runErrorCode: 'WORKFLOW_START_FAILED' | 'WORKFLOW_FAILED';

  constructor(code: WorkflowConflictCode) {
    super(WORKFLOW_CONFLICT_MESSAGES[code]);
    this.code = code;
    this.runErrorCode = code === 'WORKFLOW_EXECUTION_ENDED' ? 'WORKFLOW_FAILED' : 'WORKFLOW_START_FAILED';
  }
}

export const STORE_ERROR_CODES = Object.freeze([
  'RUN_NOT_FOUND',
  'RUN_NOT_RUNNING',
  'CORRUPT_ITEM',
  'RUN_ITEM_TOO_LARGE',
] as const);
export type RunStoreErrorCode = (typeof STORE_ERROR_CODES)[number];

/** A refused store operation (a double completion, an unknown run, an item that fails its schema, a forged cursor). */
export class RunStoreError extends DiagnosisError {
  override readonly name = 'RunStoreError';
  readonly kind = 'store';
  readonly code: RunStoreErrorCode;

  constructor(code: RunStoreErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

/** Writes that failed after the SDK's own retries; the items already written are intact. */
export class AuditWriteError extends DiagnosisError {
  override readonly name = 'AuditWriteError';
  readonly kind = 'store';
  readonly code = 'AUDIT_WRITE_FAILED';
  readonly failedItems: readonly { key: string; reason: string }[];

  constructor(failedItems: { key: string; reason: string }[]) {
    super(`${failedItems.length} audit write(s) failed: ${failedItems.map((item) => item.key).join(', ')}`);
    this.failedItems = failedItems;
  }
}

/** Invalid configuration: fails the cold start (or the deploy), naming the keys only. */
export class SettingsError extends DiagnosisError {
  override readonly name = 'SettingsError';
  readonly kind = 'settings';
  readonly code = 'INVALID_SETTINGS';
  readonly keys: readonly string[];

  constructor(keys: string[]) {
    super(`invalid configuration: ${keys.join(', ')}`);
    this.keys = keys;
  }
}

/**
 * An error's class name when it is a plain identifier, else `Error`: safe for a log line or an audit detail, since a
 * name is never a message. The one way this service names a foreign error.
 */
export function safeErrorName(error: unknown): string {
  const name = (error as { name?: unknown } | null | undefined)?.name;
  return typeof name === 'string' && /^[A-Za-z][A-Za-z0-9_]{0,63}$/.test(name) ? name : 'Error';
}

/**
 * One step of an issue's path as a message may show it. NOTE: an unexpected field's name is the caller's text: a name
 * that is not a plain identifier (any length, control or bidi characters, `<!channel>`) is shown as `?`, never echoed.
 */
const pathStep = (key: unknown) =>
  typeof key === 'number' || (typeof key === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(key)) ? String(key) : '?';

/**
 * The field paths of validation issues (`a.b.0`, or `$` for the value itself), without their values, deduplicated,
 * at most `max`: the one safe way to say what was wrong with an input.
 */
export function issuePaths(issues: readonly { path?: readonly { key: unknown }[] | undefined }[], max = 5): string[] {
  const paths = issues.map((issue) => (issue.path ?? []).map((step) => pathStep(step.key)).join('.') || '$');
  return [...new Set(paths)].slice(0, max);
}
