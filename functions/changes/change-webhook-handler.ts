import {
  CHANGE_WEBHOOK_ID_PATTERN,
  type ChangeSourceMapping,
  findWebhookSource,
  issuePaths,
  type WebhookChangeSource,
} from '@diagnosis/core';
import type { ChangeStore } from '@diagnosis/core/store';
import * as v from 'valibot';
import { type HttpApiEvent, header, json } from '../lambda/http-api-event.ts';
import { CHANGE_METRICS } from '../lambda/metric-names.ts';
import type { Observability } from '../lambda/observability.ts';
import { createUnsignedRouteHandler, Refused, unsignedEventShape } from '../lambda/unsigned-route.ts';
import {
  bearerTokenMatches,
  isJsonContentType,
  sha256SignatureMatches,
  WEBHOOK_REFUSALS,
  type WebhookRefusal,
} from '../triggers/webhook-auth.ts';
import { parseJson, rawBodyOf } from '../triggers/webhook-handler.ts';
import type { ChangeDecision } from './change-decision.ts';
import { fluxChangeOf, fluxEventSchema } from './flux-change.ts';
import { genericChangeOf, genericChangeSchema } from './generic-change.ts';
import { deploymentStatusChangeOf, deploymentStatusSchema } from './github-deployment-status.ts';
import { type ChangeAnswer, recordChange } from './record-change.ts';

export interface ChangeWebhookDeps {
  sources: readonly ChangeSourceMapping[];
  /** The values of the sources' secrets by secret name (see `parseChangeSecrets`); a source without one refuses all. */
  secrets: ReadonlyMap<string, readonly string[]>;
  store: ChangeStore;
  now: () => number;
}

/** How old a change may be when it arrives (its landing time to now), and how far ahead of our clock. */
export const CHANGE_MAX_AGE_MS = 60 * 60_000;
const CHANGE_MAX_SKEW_MS = 5 * 60_000;

const refuse = (code: WebhookRefusal, message: string) => new Refused(WEBHOOK_REFUSALS[code], code, message);

/** What the route answers: a change's outcome, or GitHub's `ping` (a new webhook's first delivery) answered. */
export type ChangeWebhookAnswer = ChangeAnswer | { outcome: 'PONG' };

/**
 * `POST /changes/{source}` on the IngressApi: a change webhook (`{source}` is its id in the stage file) or GitHub
 * (`github`). In this order, and before anything is written: the source (404 `UNKNOWN_CHANGE_SOURCE`), the body's size
 * (413) and content type (415 unless JSON), the sender's credential over the raw bytes (401 `WEBHOOK_UNAUTHENTICATED`
 * / `WEBHOOK_BAD_SIGNATURE`), the body against its documented shape (400 `INVALID_CHANGE` naming the fields), the
 * change's age (401 `WEBHOOK_STALE`: landed over an hour ago, or more than 5 minutes ahead). Then it is mapped
 * (the enterprise is the mapping's, never a text of the body) and recorded once: 202 `RECORDED`, 200 `DUPLICATE` (a
 * retry or a replay within the retention: nothing written), 202 `IGNORED` with why. NOTE: not behind IAM; the
 * credential check is the authentication, and a source whose secret is not set refuses everything.
 */
export function createChangeWebhookHandler(deps: ChangeWebhookDeps, observability: Observability) {
  return createUnsignedRouteHandler(
    observability,
    {
      refusedMetric: CHANGE_METRICS.webhookRefused,
      subject: 'change webhook',
      failedMessage: 'the change could not be recorded; retry later',
    },
    async (event) => answer(await handleChangeWebhook(event, deps, observability)),
  );
}

const answer = (body: ChangeWebhookAnswer) =>
  json(body.outcome === 'DUPLICATE' || body.outcome === 'PONG' ? 200 : 202, body);

async function handleChangeWebhook(
  event: HttpApiEvent,
  deps: ChangeWebhookDeps,
  observability: Observability,
): Promise<ChangeWebhookAnswer> {
  if (!v.is(unsignedEventShape, event))
    throw new Refused(400, 'MALFORMED_EVENT', 'the event is not a valid HTTP API request');
  if (event.requestContext.http.method !== 'POST') throw new Refused(405, 'METHOD_NOT_ALLOWED', 'use POST');
  const source = event.pathParameters?.source ?? '';
  const mapping = CHANGE_WEBHOOK_ID_PATTERN.test(source) ? findWebhookSource(deps.sources, source) : undefined;
  if (source !== 'github' && mapping === undefined) {
    throw new Refused(404, 'UNKNOWN_CHANGE_SOURCE', 'no change source of this name');
  }
  const raw = rawBodyOf(event);
  if (!isJsonContentType(header(event, 'content-type'))) {
    throw refuse('WEBHOOK_UNSUPPORTED_MEDIA_TYPE', 'the body must be application/json');
  }
  const now = deps.now();
  const decision =
    mapping === undefined ? githubDecision(event, raw, deps, now) : webhookDecision(event, raw, mapping, deps, now);
  if (decision === 'PONG') return { outcome: 'PONG' };
  if (decision.kind === 'change') {
    const at = Date.parse(decision.change.at);
    if (now - at > CHANGE_MAX_AGE_MS || at - now > CHANGE_MAX_SKEW_MS) {
      throw refuse('WEBHOOK_STALE', 'the change landed too long ago (or in the future)');
    }
  }
  return recordChange(decision, deps.store, observability);
}

/** A change webhook's request: its mapping's credential, then its body in the mapping's format. */
function webhookDecision(
  event: HttpApiEvent,
  raw: Buffer,
  mapping: WebhookChangeSource,
  deps: ChangeWebhookDeps,
  now: number,
): ChangeDecision {
  const secrets = deps.secrets.get(mapping.secret) ?? [];
  if (mapping.auth === 'bearer') {
    let matched = false;
    for (const token of secrets) matched = bearerTokenMatches(header(event, 'authorization'), token) || matched;
    if (!matched) throw refuse('WEBHOOK_UNAUTHENTICATED', 'a valid bearer token is required');
  } else {
    const verdict = sha256SignatureMatches(header(event, 'x-signature'), raw, secrets);
    if (verdict === 'MISSING') throw refuse('WEBHOOK_UNAUTHENTICATED', 'an X-Signature is required');
    if (verdict === 'INVALID') throw refuse('WEBHOOK_BAD_SIGNATURE', 'the signature does not match the body');
  }
  const body = parseJson(raw);
  if (mapping.format === 'flux') return fluxChangeOf(checked(fluxEventSchema, body), mapping, now);
  return genericChangeOf(checked(genericChangeSchema, body), raw, mapping, now);
}

/**
 * GitHub's request: `X-Hub-Signature-256` checked with the secret of every GitHub source (all of them, no early exit);
 * only the sources whose secret it proves may take it. A `ping` is answered; any event but `deployment_status` is no
 * change; a `deployment_status` is deduplicated by `X-GitHub-Delivery`.
 */
function githubDecision(
  event: HttpApiEvent,
  raw: Buffer,
  deps: ChangeWebhookDeps,
  now: number,
): ChangeDecision | 'PONG' {
  const github = deps.sources.filter((entry) => entry.source === 'github');
  const granted = new Set<string>();
  let missing = false;
  for (const name of new Set(github.map((entry) => entry.secret))) {
    const verdict = sha256SignatureMatches(header(event, 'x-hub-signature-256'), raw, deps.secrets.get(name) ?? []);
    if (verdict === 'MISSING') missing = true;
    if (verdict === 'VALID') granted.add(name);
  }
  if (missing || github.length === 0) throw refuse('WEBHOOK_UNAUTHENTICATED', 'an X-Hub-Signature-256 is required');
  if (granted.size === 0) throw refuse('WEBHOOK_BAD_SIGNATURE', 'the signature does not match the body');
  const kind = header(event, 'x-github-event');
  if (kind === 'ping') return 'PONG';
  if (kind !== 'deployment_status') return { kind: 'ignored', code: 'NOT_A_CHANGE' };
  const delivery = header(event, 'x-github-delivery') ?? '';
  if (!/^[A-Za-z0-9-]{1,100}$/.test(delivery)) {
    throw new Refused(400, 'MALFORMED_EVENT', 'an X-GitHub-Delivery id is required');
  }
  const body = checked(deploymentStatusSchema, parseJson(raw));
  const mappings = github.filter((entry) => granted.has(entry.secret));
  return deploymentStatusChangeOf(body, delivery, mappings, now);
}

/** The body in its documented shape, or a 400 `INVALID_CHANGE` naming at most five fields (never their values). */
function checked<S extends v.GenericSchema>(schema: S, body: unknown): v.InferOutput<S> {
  const parsed = v.safeParse(schema, body);
  if (parsed.success) return parsed.output;
  throw new Refused(400, 'INVALID_CHANGE', `the body is not a change: ${issuePaths(parsed.issues, 5).join(', ')}`);
}
