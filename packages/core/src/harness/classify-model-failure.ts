import {
  APICallError,
  EmptyResponseBodyError,
  InvalidResponseDataError,
  JSONParseError,
  NoContentGeneratedError,
  TypeValidationError,
} from '@ai-sdk/provider';
import { safeErrorName } from '../errors.ts';
import type { ModelFailure } from '../run/model-failure.ts';
import { ModelRequestTimeout } from './harness-signals.ts';

/** How deep a cause chain is searched for a network error code. */
const MAX_CAUSE_DEPTH = 5;
const ERROR_CODE = /^[A-Z][A-Z0-9_]{1,63}$/;

/**
 * The safe {@link ModelFailure} of a failed provider call. NOTE: it reads only the error's class, the HTTP status
 * number and Node's error code of its causes; never `message`, `responseBody`, `responseHeaders`, `url` or
 * `requestBodyValues`, which may carry the endpoint's text, the prompt or a key.
 */
export function classifyModelFailure(error: unknown): ModelFailure {
  if (error instanceof ModelRequestTimeout) return failure('TIMEOUT', 'ModelRequestTimeout');
  if (APICallError.isInstance(error)) {
    const status = httpStatusOf(error.statusCode);
    if (status === null) return failure('CONNECTION', errorClassOf(error), { networkCode: networkCodeOf(error.cause) });
    if (status >= 200 && status < 300) {
      // The endpoint answered 2xx, but the body is no chat completion: the cause says why (not JSON, wrong shape).
      const errorClass = error.cause === undefined ? errorClassOf(error) : errorClassOf(error.cause);
      return failure('INVALID_RESPONSE', errorClass, { httpStatus: status });
    }
    return failure('HTTP', errorClassOf(error), { httpStatus: status });
  }
  if (
    JSONParseError.isInstance(error) ||
    TypeValidationError.isInstance(error) ||
    InvalidResponseDataError.isInstance(error) ||
    EmptyResponseBodyError.isInstance(error) ||
    NoContentGeneratedError.isInstance(error)
  ) {
    return failure('INVALID_RESPONSE', errorClassOf(error));
  }
  const networkCode = networkCodeOf(error);
  if (networkCode !== null) return failure('CONNECTION', errorClassOf(error), { networkCode });
  return failure('UNKNOWN', errorClassOf(error));
}

function failure(
  kind: ModelFailure['kind'],
  errorClass: string,
  detail: { httpStatus?: number; networkCode?: string | null } = {},
): ModelFailure {
  return { kind, httpStatus: detail.httpStatus ?? null, errorClass, networkCode: detail.networkCode ?? null };
}

function httpStatusOf(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value >= 100 && value <= 599 ? value : null;
}

/** The error's class name, without the AI SDK's `AI_` prefix (`AI_APICallError` → `APICallError`). */
function errorClassOf(error: unknown): string {
  return safeErrorName(error).replace(/^AI_(?=[A-Za-z])/, '');
}

/** The first Node error code (`ECONNREFUSED`, `ENOTFOUND`, `CERT_HAS_EXPIRED`, …) along the cause chain, or null. */
function networkCodeOf(error: unknown): string | null {
  let current: unknown = error;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && typeof current === 'object' && current !== null; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && ERROR_CODE.test(code)) return code;
    const inner = current instanceof AggregateError ? current.errors[0] : undefined;
    current = (current as { cause?: unknown }).cause ?? inner;
  }
  return null;
}
