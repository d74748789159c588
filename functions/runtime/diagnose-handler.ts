import {
  DiagnosisInputError,
  type DiagnosisResult,
  DiagnosisRunConflictError,
  type DiagnosisServiceDeps,
  executeDiagnosisRun,
} from '@diagnosis/core';
import type { APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { type DiagnoseRequest, parseHttpRequest, parseStepFunctionsPayload, RequestError } from './diagnose-request.ts';
import { errorResponse, type HttpApiEvent, hasIamCaller, isHttpApiEvent, json } from './http.ts';

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
 * The Diagnose Lambda's logic for both event shapes. A Step Functions payload returns the result object, and bad
 * input throws an error named `DiagnosisInputError` (for a `Catch`). An HTTP API event needs the IAM authorizer (403
 * otherwise) and answers 200 with the result, 400/405/413/415 for bad input, 409 while the run is running, 503 when too
 * little time is left, 500 with a stable code for failures. Nothing is written for a refused request.
 */
export function createDiagnoseHandler(deps: DiagnosisServiceDeps) {
  return async (event: unknown, context: Context): Promise<DiagnosisResult | APIGatewayProxyStructuredResultV2> => {
    if (isHttpApiEvent(event)) return handleHttp(event, context, deps);
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
      if (error instanceof DiagnosisRunConflictError) throw error;
      deps.log?.({ level: 'ERROR', message: 'diagnosis failed', runId: request.runId, error: errorName(error) });
      throw new DiagnosisServiceError('INTERNAL');
    }
  };
}

async function handleHttp(event: HttpApiEvent, context: Context, deps: DiagnosisServiceDeps) {
  if (!hasIamCaller(event)) return errorResponse(403, 'FORBIDDEN', 'this route requires IAM authorization');
  let request: DiagnoseRequest;
  try {
    request = parseHttpRequest(event);
  } catch (error) {
    if (error instanceof RequestError) return errorResponse(error.status, error.code, error.message);
    throw error;
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

function errorName(error: unknown): string {
  const name = (error as { name?: unknown })?.name;
  return typeof name === 'string' ? name.slice(0, 64) : 'Error';
}
