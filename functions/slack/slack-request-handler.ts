import { createHash } from 'node:crypto';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import * as v from 'valibot';
import { type HttpApiEvent, header, json } from '../lambda/http-api-event.ts';
import { SLACK_METRICS } from '../lambda/metric-names.ts';
import type { Observability } from '../lambda/observability.ts';
import { createUnsignedRouteHandler, Refused, unsignedEventShape } from '../lambda/unsigned-route.ts';
import { readSlackRequest, SLACK_REQUEST_KINDS, type SlackRequestKind } from './read-slack-request.ts';
import type { ResolvedSlackApp, SlackAppDirectory } from './slack-settings.ts';
import type { SlackWork } from './slack-work.ts';
import {
  SLACK_MAX_AGE_SECONDS,
  SLACK_MAX_BODY_BYTES,
  SLACK_MAX_FUTURE_SECONDS,
  verifySlackRequest,
} from './verify-slack-request.ts';

export interface SlackRequestDeps {
  apps: SlackAppDirectory;
  /** Claims a request's signature once until `expiresAt` (ms); false when it was claimed already (a replay). */
  claimRequest(key: string, expiresAt: number): Promise<boolean>;
  /** Hands the work to the SlackWork queue. */
  enqueue(work: SlackWork): Promise<void>;
  /** Opens the rating modal (Slack's `views.open`): a `trigger_id` is valid for 3 seconds only, so it happens here. */
  openRatingModal(
    app: ResolvedSlackApp,
    request: { triggerId: string; channelId: string; messageTs: string; claimedRunId: string },
  ): Promise<void>;
  now: () => number;
}

const empty = (): APIGatewayProxyStructuredResultV2 => ({ statusCode: 200, headers: { 'cache-control': 'no-store' } });

/**
 * `POST /slack/{appId}/{kind}` (`events`, `interactivity`, `commands`), not behind IAM: Slack's signature is the
 * authentication. In this order, before any byte of the body is parsed: the app the path names (404), the body's
 * size (413), Slack's signature and timestamp (401, `verifySlackRequest`), then the signature claimed once (401
 * `SLACK_REPLAYED`: the same signed request again). Only then is the body read: `url_verification` answered with its
 * challenge; a mention, a command or a rating handed to the SlackWork queue and answered at once (Slack wants 2xx
 * within 3 s); anything from a channel the app does not map, a bot, or a plain message answered 200 with nothing.
 * NOTE: the enterprise is not decided here; the worker derives it from the app's channel mapping.
 */
export function createSlackRequestHandler(deps: SlackRequestDeps, observability: Observability) {
  return createUnsignedRouteHandler(
    observability,
    {
      refusedMetric: SLACK_METRICS.refused,
      subject: 'slack request',
      failedMessage: 'the request could not be handled; retry later',
    },
    (event) => handleSlackRequest(event, deps, observability),
  );
}

async function handleSlackRequest(event: HttpApiEvent, deps: SlackRequestDeps, observability: Observability) {
  const { logger, metrics } = observability;
  if (!v.is(unsignedEventShape, event))
    throw new Refused(400, 'MALFORMED_EVENT', 'the event is not a valid HTTP API request');
  if (event.requestContext.http.method !== 'POST') throw new Refused(405, 'METHOD_NOT_ALLOWED', 'use POST');
  const appId = event.pathParameters?.appId;
  const kind = event.pathParameters?.kind;
  const app = appId === undefined ? undefined : deps.apps.get(appId);
  if (app === undefined || !(SLACK_REQUEST_KINDS as readonly string[]).includes(kind ?? '')) {
    throw new Refused(404, 'SLACK_UNKNOWN_ROUTE', 'no such Slack app or route');
  }
  const raw = rawBodyOf(event);
  const now = deps.now();
  const signature = header(event, 'x-slack-signature');
  const verified = verifySlackRequest(
    { signature, timestamp: header(event, 'x-slack-request-timestamp'), body: raw },
    app.signingSecret,
    now,
  );
  if (!verified.ok)
    throw new Refused(verified.status, verified.code, 'the request is not a valid signed Slack request');
  // NOTE: the signature covers the timestamp and the body: the same one again within its validity is a replay.
  const claimKey = createHash('sha256').update(`${app.id}:${signature}`).digest('base64url');
  const expiresAt = now + (SLACK_MAX_AGE_SECONDS + SLACK_MAX_FUTURE_SECONDS + 60) * 1_000;
  if (!(await deps.claimRequest(claimKey, expiresAt))) {
    throw new Refused(401, 'SLACK_REPLAYED', 'this request was received already');
  }

  const decision = readSlackRequest(kind as SlackRequestKind, app, raw);
  const retry = header(event, 'x-slack-retry-num');
  switch (decision.kind) {
    case 'challenge':
      return json(200, { challenge: decision.challenge });
    case 'malformed':
      throw new Refused(400, 'SLACK_MALFORMED_BODY', 'the body is not what Slack sends');
    case 'ignored':
      metrics.addMetric(SLACK_METRICS.ignored, MetricUnit.Count, 1);
      metrics.addMetadata('ignored', decision.code);
      logger.info('slack request ignored', { appId: app.id, code: decision.code });
      return empty();
    case 'open-modal': {
      const { kind: _kind, ...request } = decision;
      await deps.openRatingModal(app, request);
      return empty();
    }
    case 'work':
      await deps.enqueue(decision.work);
      metrics.addMetric(SLACK_METRICS.accepted, MetricUnit.Count, 1);
      logger.info('slack work queued', {
        appId: app.id,
        work: decision.work.kind,
        eventId: decision.eventId,
        retry: retry === undefined ? null : retry.slice(0, 3),
      });
      if (decision.work.kind === 'command') {
        return json(200, { response_type: 'ephemeral', text: 'Starting a diagnosis for this channel…' });
      }
      return empty();
  }
}

/**
 * The raw bytes Slack signed. NOTE: the size is checked before anything is decoded — a base64 body on its encoded
 * length, a text body on its UTF-8 length (`Buffer.byteLength` counts without copying): a body of multi-byte
 * characters is up to three times its length in bytes.
 */
function rawBodyOf(event: v.InferOutput<typeof unsignedEventShape>): Buffer {
  const body = event.body ?? '';
  const tooLarge = () => new Refused(413, 'SLACK_BODY_TOO_LARGE', 'the body is too large');
  if (event.isBase64Encoded === true) {
    if (body.length > Math.ceil(SLACK_MAX_BODY_BYTES / 3) * 4) throw tooLarge();
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(body)) throw new Refused(400, 'MALFORMED_EVENT', 'the body is not base64');
    return Buffer.from(body, 'base64');
  }
  if (body.length > SLACK_MAX_BODY_BYTES || Buffer.byteLength(body, 'utf8') > SLACK_MAX_BODY_BYTES) throw tooLarge();
  return Buffer.from(body, 'utf8');
}
