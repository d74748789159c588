/**
 * The generic HTTPS webhook: the result event (EventBridge's envelope, `docs/schemas/diagnosis-run-finished.v1.json`)
 * as the JSON body, signed like Slack and Stripe sign theirs, so a receiver can check who sent it and reject replays:
 *
 *   X-Diagnosis-Timestamp: <unix seconds>
 *   X-Diagnosis-Signature: v1=<hex HMAC-SHA256(key, "v1:" + timestamp + ":" + raw body)>
 *   X-Diagnosis-Delivery-Id: <runId>:<destinationId>   (the same on every retry: the receiver's idempotency key)
 *
 * A receiver recomputes the HMAC over the raw body bytes, compares in constant time, and refuses a timestamp more
 * than five minutes from its clock (`verifyWebhookSignature` is that check, for receivers written in TypeScript).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { RunFinishedEnvelope } from './run-finished-event.ts';

export const SIGNATURE_HEADER = 'x-diagnosis-signature';
export const TIMESTAMP_HEADER = 'x-diagnosis-timestamp';
export const DELIVERY_ID_HEADER = 'x-diagnosis-delivery-id';
export const SIGNATURE_VERSION = 'v1';
/** How far a receiver should accept a timestamp from its own clock. */
const SIGNATURE_TOLERANCE_SECONDS = 300;

export interface WebhookRequest {
  body: string;
  headers: Record<string, string>;
}

function signWebhookBody(key: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', key).update(`${SIGNATURE_VERSION}:${timestampSeconds}:`).update(body).digest('hex');
  return `${SIGNATURE_VERSION}=${mac}`;
}

/** The request a webhook destination receives for one event (`nowMs` is the signing time). */
export function buildWebhookRequest(
  envelope: RunFinishedEnvelope,
  destinationId: string,
  signingKey: string,
  nowMs: number,
): WebhookRequest {
  const body = JSON.stringify(envelope);
  const timestamp = Math.floor(nowMs / 1_000);
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'diagnosis-agent-delivery/1',
      [TIMESTAMP_HEADER]: String(timestamp),
      [SIGNATURE_HEADER]: signWebhookBody(signingKey, timestamp, body),
      [DELIVERY_ID_HEADER]: `${envelope.detail.runId}:${destinationId}`,
    },
  };
}

export type SignatureCheck =
  | { ok: true }
  | { ok: false; code: 'SIGNATURE_MISSING' | 'SIGNATURE_STALE' | 'SIGNATURE_INVALID' };

/**
 * A receiver's check: the timestamp is decimal seconds within the tolerance, and one of the `v1=` signatures (several
 * may be sent, comma-separated, while a key is rotated) matches one of `keys`, compared in constant time.
 */
export function verifyWebhookSignature(input: {
  body: string | Uint8Array;
  timestamp: string | undefined;
  signature: string | undefined;
  keys: readonly string[];
  nowMs: number;
  toleranceSeconds?: number;
}): SignatureCheck {
  if (input.timestamp === undefined || input.signature === undefined) return { ok: false, code: 'SIGNATURE_MISSING' };
  if (!/^[0-9]{1,12}$/.test(input.timestamp)) return { ok: false, code: 'SIGNATURE_INVALID' };
  const age = Math.abs(input.nowMs / 1_000 - Number(input.timestamp));
  if (age > (input.toleranceSeconds ?? SIGNATURE_TOLERANCE_SECONDS)) return { ok: false, code: 'SIGNATURE_STALE' };
  const offered = input.signature
    .split(',')
    .slice(0, 10)
    .map((part) => part.trim())
    .filter((part) => /^v1=[0-9a-f]{64}$/.test(part))
    .map((part) => Buffer.from(part.slice(3), 'hex'));
  for (const key of input.keys) {
    const expected = createHmac('sha256', key)
      .update(`${SIGNATURE_VERSION}:${input.timestamp}:`)
      .update(input.body)
      .digest();
    if (offered.some((candidate) => timingSafeEqual(candidate, expected))) return { ok: true };
  }
  return { ok: false, code: 'SIGNATURE_INVALID' };
}

/** The webhook request as a terminal shows it (the signing key never appears: only the signature). */
export function renderWebhookRequestForTerminal(url: string, request: WebhookRequest): string {
  const headers = Object.entries(request.headers).map(([name, value]) => `${name}: ${value}`);
  return [`POST ${url}`, ...headers, '', JSON.stringify(JSON.parse(request.body), null, 2)].join('\n');
}
