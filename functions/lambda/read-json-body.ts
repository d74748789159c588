import { DiagnosisInputError } from '@diagnosis/core';
import { type HttpApiEvent, header } from './http-api-event.ts';

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
