import {
  DiagnosisInputError,
  type DiagnosisResult,
  DiagnosisRunConflictError,
  DiagnosisRunIdConflictError,
  type DiagnosisServiceDeps,
  executeDiagnosisRun,
} from '@diagnosis/core';
import { canAccessTenant, type TenantAccessPolicy } from '@diagnosis/core/config';
import type { APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { type DiagnoseRequest, parseHttpRequest, parseStepFunctionsPayload, RequestError } from './diagnose-request.ts';
import { admitHttpEvent, errorResponse, type HttpApiEvent, isHttpApiEvent, json } from './http.ts';

/** Thrown to Step Functions for failures that are not the caller's: a state machine may Retry on this name. */
export class DiagnosisServiceError extends Error {
  override readonly name = 'DiagnosisServiceError';
  readonly code: string;

  constructor(code: string) {
    super(`the diagnosis service failed (${code})`);
    this.code = code;
  }
}

/**
 * The Diagnose Lambda's logic for both event shapes. A Step Functions payload (trusted: whoever may start the
 * workflow) returns the result object; bad input throws an error named `DiagnosisInputError` and a runId bound to
 * another request `DiagnosisRunIdConflictError` (for a `Catch`). An HTTP API event needs the IAM authorizer (403
 * otherwise) and a caller the tenant policy lets use the body's enterprise (403 `FORBIDDEN_TENANT`), and answers 200
 * with the result, 400/405/413/415 for bad input, 409 while the run is running or when its runId belongs to another
 * request, 503 when too little time is left, 500 with a stable code for failures. Nothing is written for a refused
 * request.
 */
export function createDiagnoseHandler(deps: DiagnosisServiceDeps, policy: TenantAccessPolicy = null) {
  return async (event: unknown, context: Context): Promise<DiagnosisResult | APIGatewayProxyStructuredResultV2> => {
    if (isHttpApiEvent(event)) return handleHttp(event, context, deps, policy);
    const request = (() => {
      try {
        return parseStepFunctionsPayload(event);
      } catch (error) {
        throw asInputError(error);
      }
    })();
    try {
      return await diagnose(request, context, deps);
    } catch (error) {
      if (error instanceof DiagnosisInputError) throw asInputError(error);
      if (error instanceof DiagnosisRunConflictError || error instanceof DiagnosisRunIdConflictError) throw error;
      deps.log?.({ level: 'ERROR', message: 'diagnosis failed', runId: request.runId, error: errorName(error) });
      throw new DiagnosisServiceError('INTERNAL');
    }
  };
}

async function handleHttp(
  event: HttpApiEvent,
  context: Context,
  deps: DiagnosisServiceDeps,
  policy: TenantAccessPolicy,
) {
  const admitted = admitHttpEvent(event);
  if (admitted.response !== undefined) return admitted.response;
  let request: DiagnoseRequest;
  try {
    request = parseHttpRequest(event);
  } catch (error) {
    if (error instanceof RequestError) return errorResponse(error.status, error.code, error.message);
    throw error;
  }
  if (!canAccessTenant(policy, admitted.caller, request.enterpriseId)) {
    return errorResponse(403, 'FORBIDDEN_TENANT', 'this caller may not diagnose this enterprise');
  }
  try {
    return json(200, await diagnose(request, context, deps));
  } catch (error) {
    if (error instanceof DiagnosisInputError) {
      return error.code === 'DEADLINE_TOO_SHORT'
        ? errorResponse(503, error.code, 'too little time is left in the invocation')
        : errorResponse(400, error.code, error.message);
    }
    if (error instanceof DiagnosisRunConflictError) return errorResponse(409, error.code, 'the run is already running');
    if (error instanceof DiagnosisRunIdConflictError) return errorResponse(409, error.code, error.message);
    deps.log?.({ level: 'ERROR', message: 'diagnosis failed', runId: request.runId, error: errorName(error) });
    return errorResponse(500, 'INTERNAL', 'the diagnosis failed; see the run for details');
  }
}

function diagnose(request: DiagnoseRequest, context: Context, deps: DiagnosisServiceDeps): Promise<DiagnosisResult> {
  return executeDiagnosisRun({ ...request, remainingMs: context.getRemainingTimeInMillis() }, deps);
}

/** An error the state machine can `Catch` by name, with a safe message: `<CODE>: <message>`. */
function asInputError(error: unknown): Error {
  const inputError = new Error(
    error instanceof RequestError || error instanceof DiagnosisInputError
      ? `${error.code}: ${error.message}`
      : 'INVALID_REQUEST: the payload is not a diagnosis request',
  );
  inputError.name = 'DiagnosisInputError';
  return inputError;
}

export function errorName(error: unknown): string {
  const name = (error as { name?: unknown })?.name;
  return typeof name === 'string' && /^[A-Za-z][A-Za-z0-9_]{0,63}$/.test(name) ? name : 'Error';
}
