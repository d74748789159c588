import {
  DiagnosisInputError,
  type DiagnosisRunRequest,
  ENTERPRISE_ID_PATTERN,
  incidentWindowSchema,
  issuePaths,
  RUN_ID_PATTERN,
  SESSION_ID_PATTERN,
} from '@diagnosis/core';
import type middy from '@middy/core';
import { ulid } from 'ulid';
import * as v from 'valibot';
import { type HttpApiEvent, header, isHttpApiEvent } from '../http/http-api-event.ts';
import type { HandlerContext } from './handler-context.ts';

const runIdSchema = v.pipe(v.string(), v.regex(RUN_ID_PATTERN));
const fields = {
  sessionId: v.pipe(v.string(), v.regex(SESSION_ID_PATTERN)),
  // NOTE: the canonical form only (no lower case): `e1001` is refused, never taken for E1001 or for another tenant.
  enterpriseId: v.pipe(v.string(), v.regex(ENTERPRISE_ID_PATTERN)),
  query: v.string(),
  continueSession: v.optional(v.boolean(), false),
};
/**
 * The execution the Diagnose task runs in (`$states.context.Execution.Id`): a DiagnosisWorkflow execution, or a child
 * execution of the DiagnosisBatch's Distributed Map (`…:execution:<batch>/<map run>:<name>`).
 */
export const EXECUTION_ARN_PATTERN = /^arn:aws[a-z-]*:states:[a-z0-9-]+:\d{12}:execution:[A-Za-z0-9_.:/-]{1,400}$/;
const stepFunctionsPayloadSchema = v.strictObject({
  runId: runIdSchema,
  ...fields,
  executionArn: v.optional(v.pipe(v.string(), v.regex(EXECUTION_ARN_PATTERN))),
});
// NOTE: a caller may give its run an incident window (ISO instants, from before to, at most 7 days; stored in UTC):
// the tool boundary then refuses any time range outside it, as for a triggered run.
const httpBodySchema = v.strictObject({
  runId: v.optional(runIdSchema),
  ...fields,
  window: v.exactOptional(incidentWindowSchema),
});

const MAX_BODY_BYTES = 64 * 1024;

/**
 * Parses the request to diagnose and puts it on the context: from the workflow's task payload (the Diagnose function)
 * or from `POST /diagnoses` (the StartDiagnosis function). An event of the other shape is refused, so each function
 * has exactly one way in. Refusals throw `DiagnosisInputError` with a stable code and a message that never echoes a
 * value.
 */
export function parseDiagnoseRequest(
  from: 'workflow' | 'http',
): middy.MiddlewareObj<unknown, unknown, Error, HandlerContext> {
  return {
    before: ({ event, context }) => {
      if (isHttpApiEvent(event) !== (from === 'http')) {
        throw new DiagnosisInputError(
          'MALFORMED_EVENT',
          from === 'http' ? 'this route takes an HTTP request' : 'this function takes the workflow payload',
        );
      }
      context.diagnoseRequest = isHttpApiEvent(event) ? parseHttpRequest(event) : parseStepFunctionsPayload(event);
    },
  };
}

/** The request of a Diagnose task, and the execution it runs in (absent when invoked outside a workflow). */
export type WorkflowDiagnoseRequest = DiagnosisRunRequest & { executionArn?: string };

/** The Step Functions task payload `{ runId, sessionId, enterpriseId, query, continueSession?, executionArn? }`. */
export function parseStepFunctionsPayload(payload: unknown): WorkflowDiagnoseRequest {
  const { executionArn, ...request } = parse(stepFunctionsPayloadSchema, payload);
  return { ...checked(request), ...(executionArn === undefined ? {} : { executionArn }) };
}

/** The JSON body of `POST /diagnoses`; a missing runId gets a new ULID. */
export function parseHttpRequest(event: HttpApiEvent): DiagnosisRunRequest {
  const body = readJsonBody(event, MAX_BODY_BYTES);
  const request = parse(httpBodySchema, body);
  return checked({ ...request, runId: request.runId ?? ulid() });
}

/**
 * The JSON body of a POST route, checked in this order: the method (405), the content type (415, also for a
 * base64-encoded body), a body at all (400 `BODY_MISSING`), its size in bytes (413), then JSON (400 `BODY_NOT_JSON`).
 */
export function readJsonBody(event: HttpApiEvent, maxBytes: number): unknown {
  if ((event.requestContext?.http?.method ?? 'POST') !== 'POST')
    throw new DiagnosisInputError('METHOD_NOT_ALLOWED', 'use POST');
  const contentType = header(event, 'content-type');
  if (contentType !== undefined && !/^application\/json\s*(;.*)?$/i.test(contentType)) {
    throw new DiagnosisInputError('UNSUPPORTED_MEDIA_TYPE', 'the body must be application/json');
  }
  if (event.isBase64Encoded === true)
    throw new DiagnosisInputError('UNSUPPORTED_MEDIA_TYPE', 'the body must be plain JSON text');
  if (event.body !== undefined && event.body !== null && typeof event.body !== 'string') {
    throw new DiagnosisInputError('MALFORMED_EVENT', 'the body must be a string');
  }
  if (event.body === undefined || event.body === null || event.body.trim() === '') {
    throw new DiagnosisInputError('BODY_MISSING', 'a JSON body is required');
  }
  if (Buffer.byteLength(event.body) > maxBytes)
    throw new DiagnosisInputError('BODY_TOO_LARGE', 'the body is too large');
  try {
    return JSON.parse(event.body);
  } catch {
    throw new DiagnosisInputError('BODY_NOT_JSON', 'the body is not valid JSON');
  }
}

function parse<T extends v.GenericSchema>(schema: T, value: unknown): v.InferOutput<T> {
  const result = v.safeParse(schema, value);
  if (result.success) return result.output;
  throw new DiagnosisInputError(
    'INVALID_REQUEST',
    `invalid or unexpected fields: ${issuePaths(result.issues).join(', ')}`,
  );
}

/**
 * A query with lone surrogates cannot be passed byte for byte as UTF-8, so it is refused here; blank and oversized
 * queries are refused by the service with the configured limits, also before anything is written.
 */
function checked(request: DiagnosisRunRequest): DiagnosisRunRequest {
  if (!request.query.isWellFormed())
    throw new DiagnosisInputError('QUERY_INVALID', 'the query is not valid Unicode text');
  return request;
}
