/**
 * The identifiers that cross the trust boundary, each with one canonical form, compared exactly everywhere.
 *
 * NOTE: an enterprise id has no lower case. A database collation, a log filter or a runbook front matter that compares
 * without case could otherwise make `e1001` read E1001's data while the rest of the system calls it another tenant;
 * with one canonical form there is nothing to normalise and nothing to confuse.
 */
export const ENTERPRISE_ID_PATTERN = /^[A-Z0-9][A-Z0-9_-]{0,63}$/;

/**
 * A run id: safe inside a DynamoDB key (no `#`) and a file name, and a valid Step Functions execution name (at most 80
 * characters, no `:`), since the run's workflow execution is named by it.
 */
export const RUN_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,79}$/;

/** A session id: safe inside a DynamoDB key (no `#`). */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;

/** The longest tool call id the harness accepts from a model (providers use 20–40 characters). */
export const MAX_TOOL_CALL_ID_CHARS = 200;

/**
 * A model-chosen tool call id the harness accepts: bounded, and without `#` or any character that could end up in a
 * storage key, a log line or a prompt as something else.
 */
export const TOOL_CALL_ID_PATTERN = /^[A-Za-z0-9_.:-]{1,200}$/;

export function isEnterpriseId(value: unknown): value is string {
  return typeof value === 'string' && ENTERPRISE_ID_PATTERN.test(value);
}

export function isRunId(value: unknown): value is string {
  return typeof value === 'string' && RUN_ID_PATTERN.test(value);
}

export function isSessionId(value: unknown): value is string {
  return typeof value === 'string' && SESSION_ID_PATTERN.test(value);
}

export function isToolCallId(value: unknown): value is string {
  return typeof value === 'string' && TOOL_CALL_ID_PATTERN.test(value);
}
