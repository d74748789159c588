import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Why a webhook request is refused before anything is written; each is a 401, 413 or 415 with this code. NOTE: a
 * duplicate of an event already received is not among them: its sender proved who it is, so it is answered 200
 * `DUPLICATE` (a sender takes a 4xx as unrecoverable and alerts on it).
 */
export const WEBHOOK_REFUSALS = Object.freeze({
  WEBHOOK_UNAUTHENTICATED: 401,
  WEBHOOK_BAD_SIGNATURE: 401,
  WEBHOOK_STALE: 401,
  WEBHOOK_BODY_TOO_LARGE: 413,
  WEBHOOK_UNSUPPORTED_MEDIA_TYPE: 415,
} as const);
export type WebhookRefusal = keyof typeof WEBHOOK_REFUSALS;

/** The largest webhook body accepted, decoded (Alertmanager groups of many alerts fit; PagerDuty's are a few KB). */
export const MAX_WEBHOOK_BODY_BYTES = 256 * 1024;
/** The longest signature header read, and the most signatures in it (PagerDuty sends one, two during a rotation). */
const MAX_SIGNATURE_HEADER_CHARS = 1_024;
const MAX_SIGNATURES = 8;

/**
 * Whether `header` is `Bearer <token>` with exactly `token` (Alertmanager's `http_config.authorization`). NOTE: both
 * sides are hashed first, so the comparison is constant-time and of equal length whatever the caller sent.
 */
export function bearerTokenMatches(header: string | undefined, token: string): boolean {
  if (header === undefined || header.length > 1_024) return false;
  const match = /^Bearer ([\x21-\x7e]+)$/.exec(header);
  if (match === null) return false;
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(match[1] ?? ''), digest(token));
}

/**
 * PagerDuty v3: `X-PagerDuty-Signature` holds one or more comma-separated `v1=<hex HMAC-SHA256 of the raw body>`; the
 * request is authentic when any of them is the HMAC with any of our secrets (several during a rotation). Compared in
 * constant time, over the raw bytes as received.
 */
export function pagerDutySignatureMatches(
  header: string | undefined,
  rawBody: Buffer,
  secrets: readonly string[],
): 'VALID' | 'MISSING' | 'INVALID' {
  return hmacSignatureMatches(header, rawBody, secrets, /^v1=([0-9a-f]{64})$/, MAX_SIGNATURES);
}

/**
 * GitHub's `X-Hub-Signature-256` and Flux's `generic-hmac` `X-Signature`: one `sha256=<hex HMAC-SHA256 of the raw
 * body>`; authentic when it is the HMAC with any of our secrets (several during a rotation). Compared in constant
 * time, over the raw bytes as received.
 */
export function sha256SignatureMatches(
  header: string | undefined,
  rawBody: Buffer,
  secrets: readonly string[],
): 'VALID' | 'MISSING' | 'INVALID' {
  return hmacSignatureMatches(header, rawBody, secrets, /^sha256=([0-9a-f]{64})$/, 1);
}

/** Whether one of a header's first `most` comma-separated signatures (`form`'s hex group) is the body's HMAC. */
function hmacSignatureMatches(
  header: string | undefined,
  rawBody: Buffer,
  secrets: readonly string[],
  form: RegExp,
  most: number,
): 'VALID' | 'MISSING' | 'INVALID' {
  if (header === undefined || header.trim() === '') return 'MISSING';
  if (header.length > MAX_SIGNATURE_HEADER_CHARS) return 'INVALID';
  const given = header
    .split(',')
    .slice(0, most)
    .map((part) => form.exec(part.trim())?.[1])
    .filter((hex): hex is string => hex !== undefined)
    .map((hex) => Buffer.from(hex, 'hex'));
  if (given.length === 0) return 'INVALID';
  const expected = secrets.map((secret) => createHmac('sha256', secret).update(rawBody).digest());
  let valid = false;
  // NOTE: every pair is compared (no early exit), so the time taken does not say which one matched.
  for (const signature of given) for (const digest of expected) valid = timingSafeEqual(signature, digest) || valid;
  return valid ? 'VALID' : 'INVALID';
}

/**
 * Whether a `Content-Type` names JSON: `application/json`, any case, with parameters, a `charset` only if UTF-8 (what
 * Alertmanager and PagerDuty send). Anything else — missing, form-encoded, text, another charset — is refused.
 */
export function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined || header.length > 200) return false;
  const [type = '', ...parameters] = header.split(';').map((part) => part.trim().toLowerCase());
  if (type !== 'application/json') return false;
  return parameters.every((parameter) => {
    const [name, value] = parameter.split('=', 2).map((part) => part?.trim());
    if (name !== 'charset') return true;
    return value === 'utf-8' || value === '"utf-8"' || value === 'utf8';
  });
}
