/**
 * How a model request failed, as far as an operator can act on it: whether the endpoint answered with an error
 * status, never answered in time, could not be reached, or answered something that is not a chat completion.
 * - HTTP: the endpoint answered with a non-2xx status (`httpStatus`);
 * - TIMEOUT: no answer within the per-request limit (`DIAGNOSIS_MODEL_TIMEOUT_MS`);
 * - CONNECTION: no HTTP answer at all (refused, DNS, TLS, reset: `networkCode` when Node gave one);
 * - INVALID_RESPONSE: a 2xx answer that is not an OpenAI-compatible chat completion (HTML, not JSON, wrong shape);
 * - UNKNOWN: the provider failed in a way none of the above describes.
 */
export const MODEL_FAILURE_KINDS = Object.freeze([
  'HTTP',
  'TIMEOUT',
  'CONNECTION',
  'INVALID_RESPONSE',
  'UNKNOWN',
] as const);
export type ModelFailureKind = (typeof MODEL_FAILURE_KINDS)[number];

/**
 * The stable, safe detail of a failed model request. NOTE: it never holds a response body, a header, a URL, a key or
 * an exception message: only a kind, a status number and identifiers (a class name, a Node error code), so it may be
 * stored, logged and shown to the caller as it is.
 */
export interface ModelFailure {
  kind: ModelFailureKind;
  /** The HTTP status the endpoint answered with, when it answered (a 2xx for INVALID_RESPONSE). */
  httpStatus: number | null;
  /** The class of the error (the AI SDK's `AI_` prefix dropped): `APICallError`, `JSONParseError`, … */
  errorClass: string;
  /** Node's error code for a connection failure (`ECONNREFUSED`, `ENOTFOUND`, a TLS code), when there is one. */
  networkCode: string | null;
}

/** A {@link ModelFailure} in the wire names of reports and stored items (`http_status`, `error_class`, …). */
export interface ModelFailureReport {
  kind: ModelFailureKind;
  http_status: number | null;
  error_class: string;
  network_code: string | null;
}

export function modelFailureReport(failure: ModelFailure): ModelFailureReport {
  return {
    kind: failure.kind,
    http_status: failure.httpStatus,
    error_class: failure.errorClass,
    network_code: failure.networkCode,
  };
}
