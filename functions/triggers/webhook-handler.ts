import { MetricUnit } from '@aws-lambda-powertools/metrics';
import * as v from 'valibot';
import { type HttpApiEvent, header, json } from '../lambda/http-api-event.ts';
import { OUTCOME_DIMENSION, TRIGGER_METRICS } from '../lambda/metric-names.ts';
import type { Observability } from '../lambda/observability.ts';
import { createUnsignedRouteHandler, Refused, unsignedEventShape } from '../lambda/unsigned-route.ts';
import { alertmanagerEventId, parseAlertmanagerWebhook } from './alertmanager-webhook.ts';
import type { TriggerDecision } from './incident-facts.ts';
import { checkWebhookCredentials, mappingsGranted } from './mapping-credentials.ts';
import { pagerDutyEnvelope, parsePagerDutyWebhook } from './pagerduty-webhook.ts';
import { answerTriggerDecision, type TriggerAnswer, type TriggerDeps } from './trigger-service.ts';
import { isJsonContentType, MAX_WEBHOOK_BODY_BYTES, WEBHOOK_REFUSALS, type WebhookRefusal } from './webhook-auth.ts';

export interface WebhookSecrets {
  /** Alertmanager's shared bearer token; undefined: only mappings with their own secret can be reached. */
  alertmanagerToken: string | undefined;
  /** PagerDuty's shared signing secrets (several during a rotation); undefined: likewise. */
  pagerdutySecrets: readonly string[] | undefined;
  /**
   * The values of the mappings' own secrets (`secret` in the stage file), by secret name; a mapping whose secret is
   * not here refuses every request. See `parseMappingSecrets`.
   */
  mappingSecrets?: ReadonlyMap<string, readonly string[]>;
}

/** What the webhook route answers to an accepted request: the trigger's answer, or a duplicate (200, nothing done). */
export type WebhookAnswer = TriggerAnswer | { outcome: 'DUPLICATE' };

export interface WebhookDeps extends TriggerDeps {
  secrets: WebhookSecrets;
}

/** How long a PagerDuty delivery may travel (its `occurred_at` to now), and how far ahead of our clock it may be. */
export const PAGERDUTY_MAX_AGE_MS = 10 * 60_000;
const MAX_CLOCK_SKEW_MS = 60_000;
/** How long an Alertmanager body is remembered: the same bytes again within this time are a replay. */
export const ALERTMANAGER_REPLAY_WINDOW_MS = 60 * 60_000;

const refuse = (code: WebhookRefusal, message: string) => new Refused(WEBHOOK_REFUSALS[code], code, message);

/**
 * `POST /triggers/{source}` for Alertmanager (webhook v4, its `http_config` bearer token) and PagerDuty (v3,
 * `X-PagerDuty-Signature`). In this order, and before anything is written: the body's size (413), its content type
 * (415 `WEBHOOK_UNSUPPORTED_MEDIA_TYPE` unless JSON), the sender's credential over the raw bytes (401
 * `WEBHOOK_UNAUTHENTICATED` / `WEBHOOK_BAD_SIGNATURE`), the event's age (401 `WEBHOOK_STALE`), then its id claimed
 * once with a conditional write: an event received already is a duplicate, answered 200 `DUPLICATE` with nothing
 * written (the sender's repeat or retry; it proved who it is). Only then is it mapped and handled as one incident:
 * 202 with what happened. NOTE: these routes are not behind IAM; the credential check is their authentication, and a
 * route whose secret is not set refuses everything.
 */
export function createWebhookHandler(deps: WebhookDeps, observability: Observability) {
  return createUnsignedRouteHandler(
    observability,
    {
      refusedMetric: TRIGGER_METRICS.webhookRefused,
      subject: 'webhook',
      failedMessage: 'the webhook could not be handled; retry later',
    },
    (event) => handleWebhook(event, deps, observability),
  );
}

async function handleWebhook(event: HttpApiEvent, deps: WebhookDeps, observability: Observability) {
  if (!v.is(unsignedEventShape, event))
    throw new Refused(400, 'MALFORMED_EVENT', 'the event is not a valid HTTP API request');
  if (event.requestContext.http.method !== 'POST') throw new Refused(405, 'METHOD_NOT_ALLOWED', 'use POST');
  const source = event.pathParameters?.source;
  if (source !== 'alertmanager' && source !== 'pagerduty') {
    throw new Refused(404, 'UNKNOWN_TRIGGER_SOURCE', 'the sources are alertmanager and pagerduty');
  }
  const raw = rawBodyOf(event);
  if (!isJsonContentType(header(event, 'content-type'))) {
    throw refuse('WEBHOOK_UNSUPPORTED_MEDIA_TYPE', 'the body must be application/json');
  }
  const now = deps.now();
  let eventId: string;
  let expiresAt: number;
  let json: unknown;
  // NOTE: a request proves some credentials (the shared secret, mappings' own secrets); only the mappings of those
  // credentials are considered for it, so one mapping's token cannot start runs for another's enterprise.
  const credentials = checkWebhookCredentials(
    source,
    { authorization: header(event, 'authorization'), signature: header(event, 'x-pagerduty-signature'), rawBody: raw },
    source === 'alertmanager'
      ? deps.secrets.alertmanagerToken === undefined
        ? undefined
        : [deps.secrets.alertmanagerToken]
      : deps.secrets.pagerdutySecrets,
    deps.secrets.mappingSecrets ?? new Map(),
    deps.config.mappings,
  );
  if (!credentials.ok) {
    throw refuse(
      credentials.code,
      credentials.code === 'WEBHOOK_BAD_SIGNATURE'
        ? 'no signature matches the body'
        : source === 'alertmanager'
          ? 'a valid bearer token is required'
          : 'an X-PagerDuty-Signature is required',
    );
  }
  const config = { ...deps.config, mappings: mappingsGranted(deps.config.mappings, source, credentials.granted) };
  if (source === 'alertmanager') {
    json = parseJson(raw);
    eventId = alertmanagerEventId(raw);
    expiresAt = now + ALERTMANAGER_REPLAY_WINDOW_MS;
  } else {
    json = parseJson(raw);
    const envelope = pagerDutyEnvelope(json);
    if (envelope === null) throw new Refused(400, 'MALFORMED_EVENT', 'the body is not a PagerDuty v3 webhook');
    if (now - envelope.occurredAt > PAGERDUTY_MAX_AGE_MS || envelope.occurredAt - now > MAX_CLOCK_SKEW_MS) {
      throw refuse('WEBHOOK_STALE', 'the event is too old (or from the future)');
    }
    eventId = envelope.eventId;
    expiresAt = envelope.occurredAt + PAGERDUTY_MAX_AGE_MS + MAX_CLOCK_SKEW_MS;
  }
  if (!(await deps.incidents.claimWebhookEvent(source, eventId, { at: now, expiresAt }))) {
    // NOTE: Alertmanager repeats an unchanged group byte for byte every repeat_interval, PagerDuty retries a delivery
    // it did not see answered: neither is an authentication failure, and a 4xx would be logged as a failed notify.
    observability.metrics.addDimension(OUTCOME_DIMENSION, 'DUPLICATE');
    observability.metrics.addMetric(TRIGGER_METRICS.events, MetricUnit.Count, 1);
    observability.logger.info('webhook duplicate', { source });
    return duplicate();
  }
  const decision: TriggerDecision =
    source === 'alertmanager'
      ? parseAlertmanagerWebhook(json, raw, config, now)
      : parsePagerDutyWebhook(json, config, now);
  try {
    return json202(await answerTriggerDecision(decision, deps, observability));
  } catch (error) {
    // NOTE: the sender retries a 500; its retry must not be taken for a replay.
    await deps.incidents.releaseWebhookEvent(source, eventId).catch(() => undefined);
    throw error;
  }
}

const json202 = (body: TriggerAnswer) => json(202, body);
const duplicate = () => json(200, { outcome: 'DUPLICATE' } satisfies WebhookAnswer);

/**
 * The raw bytes the sender signed. API Gateway hands a body over as text, or base64 when `isBase64Encoded` (a
 * content type it treats as binary); the size is checked on the encoded length first, so no oversized body is
 * decoded.
 */
export function rawBodyOf(event: v.InferOutput<typeof unsignedEventShape>): Buffer {
  const body = event.body ?? '';
  if (event.isBase64Encoded === true) {
    if (body.length > Math.ceil(MAX_WEBHOOK_BODY_BYTES / 3) * 4) throw refuse('WEBHOOK_BODY_TOO_LARGE', 'too large');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(body)) throw new Refused(400, 'MALFORMED_EVENT', 'the body is not base64');
    const decoded = Buffer.from(body, 'base64');
    if (decoded.length > MAX_WEBHOOK_BODY_BYTES) throw refuse('WEBHOOK_BODY_TOO_LARGE', 'the body is too large');
    return decoded;
  }
  if (body.length > MAX_WEBHOOK_BODY_BYTES) throw refuse('WEBHOOK_BODY_TOO_LARGE', 'the body is too large');
  const bytes = Buffer.from(body, 'utf8');
  if (bytes.length > MAX_WEBHOOK_BODY_BYTES) throw refuse('WEBHOOK_BODY_TOO_LARGE', 'the body is too large');
  return bytes;
}

/** The raw body as JSON, or a 400 `BODY_NOT_JSON` refusal. */
export function parseJson(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw new Refused(400, 'BODY_NOT_JSON', 'the body is not valid JSON');
  }
}
