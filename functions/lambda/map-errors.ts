import type { Logger } from '@aws-lambda-powertools/logger';
import {
  DiagnosisError,
  type DiagnosisInputErrorCode,
  safeErrorName,
  TENANT_BUSY_RETRY_AFTER_SECONDS,
} from '@diagnosis/core';
import type middy from '@middy/core';
import { errorResponse, isHttpApiEvent } from './http-api-event.ts';

/** Thrown to Step Functions for failures that are not the caller's: a state machine may Retry on this name. */
class DiagnosisServiceError extends Error {
  override readonly name = 'DiagnosisServiceError';
  readonly code = 'INTERNAL';

  constructor() {
    super('the diagnosis service failed (INTERNAL)');
  }
}

/** The HTTP status of a caller error whose status is not 400. */
const CALLER_STATUS: Partial<Record<DiagnosisInputErrorCode, number>> = {
  FORBIDDEN: 403,
  FORBIDDEN_TENANT: 403,
  RUN_NOT_FOUND: 404,
  PAST_INCIDENT_NOT_FOUND: 404,
  CALLER_UNKNOWN: 403,
  RUN_NOT_ENDED: 409,
  FEEDBACK_LIMIT: 409,
  FEEDBACK_CONFLICT: 409,
  METHOD_NOT_ALLOWED: 405,
  BODY_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  DEADLINE_TOO_SHORT: 503,
  MASKING_UNAVAILABLE: 503,
};

/**
 * The one table from errors to answers. For an HTTP API event: a caller error is its status (400 unless listed
 * above) with `{ error: { code, message } }`; a conflict is 409 (429 `TENANT_BUSY` with `Retry-After` for an
 * enterprise at one of its caps);
 * anything else is 500 `INTERNAL` with a fixed message (its class name alone is logged). For a Step Functions
 * payload: a caller error becomes an error named `DiagnosisInputError` with the message `<CODE>: <message>`, a
 * conflict keeps its own name (`DiagnosisRunConflictError`, `DiagnosisRunIdConflictError`,
 * `DiagnosisTenantBusyError`), and anything else is `DiagnosisServiceError`, which the workflow may retry (a retry of
 * the same runId never runs the agent twice).
 */
function answerFor(error: unknown, http: boolean) {
  const known = error instanceof DiagnosisError && (error.kind === 'caller' || error.kind === 'conflict');
  if (http) {
    if (!known) return { response: errorResponse(500, 'INTERNAL', 'the diagnosis failed; see the run for details') };
    const status =
      error.kind === 'conflict'
        ? error.code === 'TENANT_BUSY'
          ? 429
          : 409
        : (CALLER_STATUS[error.code as DiagnosisInputErrorCode] ?? 400);
    const response = errorResponse(status, error.code, error.message);
    // NOTE: a busy enterprise is told when to come back (RFC 9110 `Retry-After`, in seconds).
    if (status === 429)
      response.headers = { ...response.headers, 'retry-after': String(TENANT_BUSY_RETRY_AFTER_SECONDS) };
    return { response };
  }
  if (!known) return { error: new DiagnosisServiceError() };
  if (error.kind === 'conflict') return { error };
  const named = new Error(`${error.code}: ${error.message}`);
  named.name = 'DiagnosisInputError';
  return { error: named };
}

/**
 * Middy `onError`: every failure of the chain is answered by {@link answerFor}. Only failures that are not the
 * caller's are logged, by error class (never the message, which may carry a library's text).
 */
export function mapErrors(logger: Logger): middy.MiddlewareObj {
  return {
    onError: (request) => {
      const http = isHttpApiEvent(request.event);
      const answer = answerFor(request.error, http);
      const notTheCallers =
        'error' in answer ? answer.error instanceof DiagnosisServiceError : answer.response.statusCode === 500;
      if (notTheCallers) logger.error('request failed', { error: safeErrorName(request.error) });
      if ('response' in answer) {
        request.response = answer.response;
        return;
      }
      request.error = answer.error;
    },
  };
}
