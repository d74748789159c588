/**
 * Slack's request signing (https://api.slack.com/authentication/verifying-requests-from-slack), checked before any
 * byte of the body is parsed: the body's size, the two headers' form, the timestamp's age, then HMAC-SHA256 with the
 * app's signing secret over `v0:{X-Slack-Request-Timestamp}:{raw body}`, compared in constant time with
 * `X-Slack-Signature` (`v0=<64 hex>`). Every refusal has its own stable code and HTTP status; nothing of the request
 * is echoed.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The largest body accepted, in bytes. NOTE: an interactivity payload carries the whole message the button was on
 * (our card: at most 50 blocks, in practice under 50 KB), form-encoded (up to 3× larger); 256 KiB holds the largest
 * card we post with room, and bounds what an unauthenticated caller can make us hash.
 */
export const SLACK_MAX_BODY_BYTES = 256 * 1024;
/** How old a request may be (Slack's own rule: five minutes). */
export const SLACK_MAX_AGE_SECONDS = 300;
/**
 * How far ahead of our clock a request's timestamp may be. NOTE: Slack's clock and Lambda's both follow NTP; a
 * minute of skew is tolerated (as the PagerDuty webhook is), anything further in the future is refused, so a captured
 * request cannot be kept valid for longer than its five minutes by a forged future timestamp (it would not verify
 * anyway: the timestamp is signed).
 */
export const SLACK_MAX_FUTURE_SECONDS = 60;

export const SLACK_REFUSALS = Object.freeze({
  SLACK_BODY_TOO_LARGE: 413,
  SLACK_SIGNATURE_MISSING: 401,
  SLACK_SIGNATURE_MALFORMED: 401,
  SLACK_TIMESTAMP_MALFORMED: 401,
  SLACK_STALE: 401,
  SLACK_FROM_THE_FUTURE: 401,
  SLACK_BAD_SIGNATURE: 401,
} as const);
type SlackRefusal = keyof typeof SLACK_REFUSALS;

export type SlackVerification = { ok: true } | { ok: false; code: SlackRefusal; status: number };

const refuse = (code: SlackRefusal): SlackVerification => ({ ok: false, code, status: SLACK_REFUSALS[code] });

const SIGNATURE_PATTERN = /^v0=[0-9a-f]{64}$/;
/** Unix seconds, no sign, no leading zero, at most 12 digits (a year far beyond any request). */
const TIMESTAMP_PATTERN = /^[1-9][0-9]{0,11}$/;

/**
 * Checks one request. `signature` and `timestamp` are the header values as received (undefined when absent);
 * `body` the raw bytes; `nowMs` our clock.
 */
export function verifySlackRequest(
  request: { signature: string | undefined; timestamp: string | undefined; body: Uint8Array },
  signingSecret: string,
  nowMs: number,
): SlackVerification {
  if (request.body.byteLength > SLACK_MAX_BODY_BYTES) return refuse('SLACK_BODY_TOO_LARGE');
  if (request.signature === undefined || request.timestamp === undefined) return refuse('SLACK_SIGNATURE_MISSING');
  if (!SIGNATURE_PATTERN.test(request.signature)) return refuse('SLACK_SIGNATURE_MALFORMED');
  if (!TIMESTAMP_PATTERN.test(request.timestamp)) return refuse('SLACK_TIMESTAMP_MALFORMED');
  const timestamp = Number(request.timestamp);
  const nowSeconds = Math.floor(nowMs / 1_000);
  if (nowSeconds - timestamp > SLACK_MAX_AGE_SECONDS) return refuse('SLACK_STALE');
  if (timestamp - nowSeconds > SLACK_MAX_FUTURE_SECONDS) return refuse('SLACK_FROM_THE_FUTURE');
  const expected = createHmac('sha256', signingSecret)
    .update(`v0:${request.timestamp}:`, 'utf8')
    .update(request.body)
    .digest();
  const given = Buffer.from(request.signature.slice(3), 'hex');
  // NOTE: both are 32 bytes here (the pattern fixed the length), so the compare is constant-time over the whole.
  return timingSafeEqual(expected, given) ? { ok: true } : refuse('SLACK_BAD_SIGNATURE');
}

/** The signature Slack would send for a body at a timestamp (tests, the local loopback): `v0=<hex>`. */
export function signSlackRequest(body: string | Uint8Array, timestamp: string, signingSecret: string): string {
  // NOTE: Hmac.update reads a string as UTF-8 and bytes as they are, so both forms of a body sign alike.
  const hmac = createHmac('sha256', signingSecret).update(`v0:${timestamp}:`, 'utf8').update(body);
  return `v0=${hmac.digest('hex')}`;
}
