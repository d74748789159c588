import { DiagnosisInputError, parseStartRequest, parseWorkflowRequest } from '@diagnosis/core';
import type middy from '@middy/core';
import { ulid } from 'ulid';
import { type HttpApiEvent, header, isHttpApiEvent } from '../http/http-api-event.ts';
import type { HandlerContext } from './handler-context.ts';

const MAX_BODY_BYTES = 64 * 1024;

/**
 * Parses the request to diagnose and puts it on the context: from the workflow's task payload (the Diagnose function,
 * `parseWorkflowRequest`) or from `POST /diagnoses` (the StartDiagnosis function, `parseStartRequest`; a missing runId
 * gets a new ULID). An event of the other shape is refused, so each function has exactly one way in. Refusals throw
 * `DiagnosisInputError` with a stable code and a message that never echoes a value.
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
      // NOTE: core's one request schema; the ids are checked here, once, and the service trusts the parsed value.
      context.diagnoseRequest = isHttpApiEvent(event)
        ? parseStartRequest(readJsonBody(event, MAX_BODY_BYTES), ulid)
        : parseWorkflowRequest(event);
    },
  };
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
