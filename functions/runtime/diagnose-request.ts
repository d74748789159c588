import { ENTERPRISE_ID_PATTERN, RUN_ID_PATTERN } from '@diagnosis/core';
import { ulid } from 'ulid';
import * as v from 'valibot';
import { type HttpApiEvent, header } from './http.ts';

const runIdSchema = v.pipe(v.string(), v.regex(RUN_ID_PATTERN));
const fields = {
  sessionId: v.pipe(v.string(), v.regex(RUN_ID_PATTERN)),
  // NOTE: the canonical form only (no lower case): `e1001` is refused, never taken for E1001 or for another tenant.
  enterpriseId: v.pipe(v.string(), v.regex(ENTERPRISE_ID_PATTERN)),
  query: v.string(),
  continueSession: v.optional(v.boolean(), false),
};
const stepFunctionsPayloadSchema = v.strictObject({ runId: runIdSchema, ...fields });
const httpBodySchema = v.strictObject({ runId: v.optional(runIdSchema), ...fields });

export interface DiagnoseRequest {
  runId: string;
  sessionId: string;
  enterpriseId: string;
  query: string;
  continueSession: boolean;
}

/** A refused request: `status` is the HTTP status, `code` stable, `message` safe to show (it never echoes values). */
export class RequestError extends Error {
  override readonly name = 'DiagnosisInputError';
  readonly status: number;
  readonly code: string;

  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

const MAX_BODY_BYTES = 64 * 1024;

/** The Step Functions task payload `{ runId, sessionId, enterpriseId, query, continueSession? }`. */
export function parseStepFunctionsPayload(payload: unknown): DiagnoseRequest {
  return checked(parse(stepFunctionsPayloadSchema, payload));
}

/** The JSON body of `POST /diagnoses`; a missing runId gets a new ULID. */
export function parseHttpRequest(event: HttpApiEvent): DiagnoseRequest {
  if ((event.requestContext?.http?.method ?? 'POST') !== 'POST')
    throw new RequestError(405, 'METHOD_NOT_ALLOWED', 'use POST');
  const contentType = header(event, 'content-type');
  if (contentType !== undefined && !/^application\/json\s*(;.*)?$/i.test(contentType)) {
    throw new RequestError(415, 'UNSUPPORTED_MEDIA_TYPE', 'the body must be application/json');
  }
  if (event.isBase64Encoded === true)
    throw new RequestError(415, 'UNSUPPORTED_MEDIA_TYPE', 'the body must be plain JSON text');
  if (event.body !== undefined && event.body !== null && typeof event.body !== 'string') {
    throw new RequestError(400, 'MALFORMED_EVENT', 'the body must be a string');
  }
  if (event.body === undefined || event.body === null || event.body.trim() === '') {
    throw new RequestError(400, 'BODY_MISSING', 'a JSON body is required');
  }
  if (Buffer.byteLength(event.body) > MAX_BODY_BYTES)
    throw new RequestError(413, 'BODY_TOO_LARGE', 'the body is too large');
  let body: unknown;
  try {
    body = JSON.parse(event.body);
  } catch {
    throw new RequestError(400, 'BODY_NOT_JSON', 'the body is not valid JSON');
  }
  const request = parse(httpBodySchema, body);
  return checked({ ...request, runId: request.runId ?? ulid() });
}

function parse<T extends v.GenericSchema>(schema: T, value: unknown): v.InferOutput<T> {
  const result = v.safeParse(schema, value);
  if (result.success) return result.output;
  const paths = [
    ...new Set(result.issues.map((issue) => issue.path?.map((step) => String(step.key)).join('.') || '$')),
  ].slice(0, 5);
  throw new RequestError(400, 'INVALID_REQUEST', `invalid or unexpected fields: ${paths.join(', ')}`);
}

/**
 * A query with lone surrogates cannot be passed byte for byte as UTF-8, so it is refused here; blank and oversized
 * queries are refused by the service with the configured limits, also before anything is written.
 */
function checked(request: DiagnoseRequest): DiagnoseRequest {
  if (!request.query.isWellFormed())
    throw new RequestError(400, 'QUERY_INVALID', 'the query is not valid Unicode text');
  return request;
}
