import { APICallError, JSONParseError, TypeValidationError } from '@ai-sdk/provider';
import { classifyModelFailure, ModelRequestTimeout } from '@diagnosis/core/harness';
import { describe, expect, it } from 'vitest';

const MARKER = 'BODY-MARKER-7f3a';
const KEY = 'sk-secret-key-0001';

function apiCallError(statusCode: number | undefined, cause?: unknown) {
  return new APICallError({
    message: `${MARKER} upstream said no`,
    url: `https://models.example.com/v1/chat/completions?key=${KEY}`,
    requestBodyValues: { messages: [{ role: 'user', content: MARKER }] },
    ...(statusCode === undefined ? {} : { statusCode }),
    responseHeaders: { 'x-request-id': MARKER },
    responseBody: `{"error":{"message":"${MARKER}"}}`,
    cause,
  });
}

function connectionError(code: string) {
  return Object.assign(new Error(`connect ${code} 10.1.2.3:443 ${MARKER}`), { code, syscall: 'connect' });
}

describe('classifyModelFailure', () => {
  it.each([
    [401, 'HTTP'],
    [403, 'HTTP'],
    [404, 'HTTP'],
    [429, 'HTTP'],
    [500, 'HTTP'],
    [503, 'HTTP'],
  ] as const)('records the status %i of an endpoint that answered with an error as %s', (status, kind) => {
    expect(classifyModelFailure(apiCallError(status))).toEqual({
      kind,
      httpStatus: status,
      errorClass: 'APICallError',
      networkCode: null,
    });
  });

  it('records a 200 whose body is not JSON as an invalid response, with the parse error’s class', () => {
    const error = apiCallError(200, new JSONParseError({ text: `<html>${MARKER}</html>`, cause: new SyntaxError() }));
    expect(classifyModelFailure(error)).toEqual({
      kind: 'INVALID_RESPONSE',
      httpStatus: 200,
      errorClass: 'JSONParseError',
      networkCode: null,
    });
  });

  it('records a 200 whose JSON is not a chat completion as an invalid response', () => {
    const error = apiCallError(200, new TypeValidationError({ value: { foo: MARKER }, cause: new Error(MARKER) }));
    expect(classifyModelFailure(error)).toMatchObject({ kind: 'INVALID_RESPONSE', errorClass: 'TypeValidationError' });
  });

  it.each(['ECONNREFUSED', 'ENOTFOUND', 'ECONNRESET', 'CERT_HAS_EXPIRED', 'UND_ERR_CONNECT_TIMEOUT'])(
    'records a connection failure with Node’s code %s and no status',
    (code) => {
      expect(classifyModelFailure(apiCallError(undefined, connectionError(code)))).toEqual({
        kind: 'CONNECTION',
        httpStatus: null,
        errorClass: 'APICallError',
        networkCode: code,
      });
    },
  );

  it('finds the code inside fetch’s own wrapping and an AggregateError of several addresses', () => {
    const fetchFailed = new TypeError('fetch failed', {
      cause: new AggregateError([connectionError('ECONNREFUSED'), connectionError('ECONNREFUSED')], MARKER),
    });
    expect(classifyModelFailure(fetchFailed)).toMatchObject({ kind: 'CONNECTION', networkCode: 'ECONNREFUSED' });
  });

  it('records the harness’s own per-request timeout as TIMEOUT', () => {
    expect(classifyModelFailure(new ModelRequestTimeout(300))).toEqual({
      kind: 'TIMEOUT',
      httpStatus: null,
      errorClass: 'ModelRequestTimeout',
      networkCode: null,
    });
  });

  it('names only the class of an error it cannot place', () => {
    expect(classifyModelFailure(new RangeError(MARKER))).toEqual({
      kind: 'UNKNOWN',
      httpStatus: null,
      errorClass: 'RangeError',
      networkCode: null,
    });
    expect(classifyModelFailure(MARKER)).toMatchObject({ kind: 'UNKNOWN', errorClass: 'Error' });
  });

  it('never carries a message, body, header, URL or key of the error', () => {
    const errors = [
      apiCallError(401),
      apiCallError(200, new JSONParseError({ text: MARKER, cause: new Error(MARKER) })),
      apiCallError(undefined, connectionError('ECONNREFUSED')),
      Object.assign(new Error(MARKER), { code: `lower-${MARKER}` }),
    ];
    for (const error of errors) {
      const text = JSON.stringify(classifyModelFailure(error));
      expect(text).not.toContain(MARKER);
      expect(text).not.toContain(KEY);
      expect(text).not.toContain('example.com');
    }
  });
});
