import { createHash } from 'node:crypto';
import {
  boundChangeText,
  boundChangeUrl,
  CHANGE_KINDS,
  CHANGE_TEXT_CAPS,
  type WebhookChangeSource,
} from '@diagnosis/core';
import * as v from 'valibot';
import { type ChangeDecision, ISO_INSTANT, utcInstant } from './change-decision.ts';

const text = v.pipe(v.string(), v.maxLength(20_000));

/**
 * The documented body of a change webhook (docs/changes.md, "The body"): `service`, `kind`, `time` and `summary` are
 * required, `id`, `environment`, `ref`, `actor` and `url` optional; any other field is refused, so a template's typo
 * is found at once. Texts are bounded when kept (a summary over its cap is cut and marked, never refused).
 */
export const genericChangeSchema = v.strictObject({
  id: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(CHANGE_TEXT_CAPS.eventId))),
  service: v.pipe(v.string(), v.minLength(1), v.maxLength(CHANGE_TEXT_CAPS.service)),
  environment: v.optional(v.nullable(text)),
  kind: v.picklist(CHANGE_KINDS),
  ref: v.optional(v.nullable(text)),
  actor: v.optional(v.nullable(text)),
  time: v.pipe(
    v.string(),
    v.maxLength(64),
    v.regex(ISO_INSTANT),
    v.check((value) => Number.isFinite(Date.parse(value))),
  ),
  url: v.optional(v.nullable(text)),
  summary: v.pipe(text, v.minLength(1)),
});
export type GenericChangeBody = v.InferOutput<typeof genericChangeSchema>;

/**
 * A change from the documented body, for the webhook mapping the path names: its enterprise, and only a service the
 * mapping lists (another is recorded nowhere: `UNMAPPED`). The event id is the body's `id`, or the SHA-256 of the raw
 * body when it has none (so the same bytes again are the same change).
 */
export function genericChangeOf(
  body: GenericChangeBody,
  raw: Buffer,
  mapping: WebhookChangeSource,
  receivedAt: number,
): ChangeDecision {
  if (!mapping.services.includes(body.service)) return { kind: 'ignored', code: 'UNMAPPED' };
  return {
    kind: 'change',
    change: {
      enterpriseId: mapping.enterpriseId,
      source: 'webhook',
      origin: mapping.id,
      eventId: body.id ?? `sha256:${createHash('sha256').update(raw).digest('hex')}`,
      at: utcInstant(Date.parse(body.time)),
      service: body.service,
      environment: boundChangeText(body.environment, CHANGE_TEXT_CAPS.environment),
      kind: body.kind,
      ref: boundChangeText(body.ref, CHANGE_TEXT_CAPS.ref),
      actor: boundChangeText(body.actor, CHANGE_TEXT_CAPS.actor),
      summary: boundChangeText(body.summary, CHANGE_TEXT_CAPS.summary) ?? '（无）',
      url: boundChangeUrl(body.url),
      receivedAt: utcInstant(receivedAt),
    },
  };
}
