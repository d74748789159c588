import type { ProgressSnapshot } from '../run/progress.ts';

/** The caller's input was refused before any model call. */
export type DiagnosisInputErrorCode =
  | 'QUERY_BLANK'
  | 'QUERY_TOO_LARGE'
  | 'PREVIOUS_TURN_INVALID'
  | 'PREVIOUS_TURN_TOO_LARGE'
  | 'INPUT_TOO_LARGE'
  | 'DEADLINE_TOO_SHORT'
  | 'INVALID_IDENTIFIER';

/** The model's final text was not a valid DiagnosisDraft. */
export type DiagnosisAgentOutputErrorCode = 'DRAFT_BLANK' | 'DRAFT_NOT_JSON' | 'DRAFT_SCHEMA' | 'DRAFT_TOO_LARGE';

/** The run failed for a reason that is neither the caller's input nor a controlled stop. */
export type DiagnosisExecutionErrorCode = 'MODEL_FAILED' | 'AUDIT_FAILED' | 'INTERNAL';

/** Caller error: nothing was sent to the model. The message is safe to show to the caller. */
export class DiagnosisInputError extends Error {
  override readonly name = 'DiagnosisInputError';
  readonly code: DiagnosisInputErrorCode;

  constructor(code: DiagnosisInputErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

/**
 * Model misbehaviour: the final text broke the Draft contract. The text itself is discarded (never repaired, never
 * re-asked); `progress` is the bounded snapshot when the run had READY checks, else null (nothing is fabricated).
 */
export class DiagnosisAgentOutputError extends Error {
  override readonly name = 'DiagnosisAgentOutputError';
  readonly code: DiagnosisAgentOutputErrorCode;
  readonly progress: ProgressSnapshot | null;

  constructor(code: DiagnosisAgentOutputErrorCode, progress: ProgressSnapshot | null) {
    super(`the final model output is not a valid DiagnosisDraft (${code})`);
    this.code = code;
    this.progress = progress;
  }
}

/**
 * System error: the run failed closed. `cause` keeps the original error for the operator's own diagnostics; the
 * message is fixed per code and never contains the cause's text.
 */
export class DiagnosisExecutionError extends Error {
  override readonly name = 'DiagnosisExecutionError';
  readonly code: DiagnosisExecutionErrorCode;

  constructor(code: DiagnosisExecutionErrorCode, options?: { cause?: unknown }) {
    super(EXECUTION_MESSAGES[code], options);
    this.code = code;
  }
}

const EXECUTION_MESSAGES: Record<DiagnosisExecutionErrorCode, string> = {
  MODEL_FAILED: 'the model call failed; the run was not retried',
  AUDIT_FAILED: 'the audit hook failed; the run was stopped',
  INTERNAL: 'the diagnosis failed unexpectedly',
};
