import { boundChangeText, CHANGE_TEXT_CAPS, type WebhookChangeSource } from '@diagnosis/core';
import * as v from 'valibot';
import { boundedEventId, type ChangeDecision, ISO_INSTANT, utcInstant } from './change-decision.ts';

const name = v.pipe(v.string(), v.minLength(1), v.maxLength(253));

/**
 * A Flux notification-controller event (`generic` / `generic-hmac` provider), as Flux documents it: the involved
 * object, `severity`, `timestamp`, `message`, `reason`, `metadata` (the revision) and the reporting controller. Only
 * the fields read are checked (Flux adds fields).
 */
export const fluxEventSchema = v.object({
  involvedObject: v.object({ kind: name, namespace: v.optional(name, ''), name }),
  severity: v.picklist(['info', 'error', 'trace']),
  timestamp: v.pipe(
    v.string(),
    v.maxLength(64),
    v.regex(ISO_INSTANT),
    v.check((value) => Number.isFinite(Date.parse(value))),
  ),
  message: v.pipe(v.string(), v.maxLength(20_000)),
  reason: v.optional(v.pipe(v.string(), v.maxLength(200)), ''),
  metadata: v.optional(v.record(v.pipe(v.string(), v.maxLength(253)), v.pipe(v.string(), v.maxLength(1_000))), {}),
  reportingController: v.optional(v.pipe(v.string(), v.maxLength(200))),
});
export type FluxEvent = v.InferOutput<typeof fluxEventSchema>;

/** The revision an event names: `metadata.revision`, or a `<group>/revision` key (older controllers). */
function revisionOf(metadata: Record<string, string>): string | undefined {
  if (metadata.revision !== undefined) return metadata.revision;
  const key = Object.keys(metadata).find((candidate) => candidate.endsWith('/revision'));
  return key === undefined ? undefined : metadata[key];
}

/**
 * A Flux event as a change: an `info` event that names a revision is that revision reaching the cluster, a deploy of
 * the object's name (which must be one of the mapping's services). The event id is the object and its revision, so
 * Flux's every-interval events for a revision already applied are the same change, stored once. An `error` event or
 * one without a revision is no change.
 */
export function fluxChangeOf(event: FluxEvent, mapping: WebhookChangeSource, receivedAt: number): ChangeDecision {
  const revision = revisionOf(event.metadata);
  if (event.severity !== 'info' || revision === undefined || revision === '') {
    return { kind: 'ignored', code: 'NOT_A_CHANGE' };
  }
  const { kind, namespace, name: object } = event.involvedObject;
  if (!mapping.services.includes(object)) return { kind: 'ignored', code: 'UNMAPPED' };
  return {
    kind: 'change',
    change: {
      enterpriseId: mapping.enterpriseId,
      source: 'webhook',
      origin: mapping.id,
      eventId: boundedEventId(`${kind}/${namespace}/${object}@${revision}`),
      at: utcInstant(Date.parse(event.timestamp)),
      service: object,
      environment: boundChangeText(namespace, CHANGE_TEXT_CAPS.environment),
      kind: 'deploy',
      ref: boundChangeText(revision, CHANGE_TEXT_CAPS.ref),
      actor: boundChangeText(event.reportingController, CHANGE_TEXT_CAPS.actor),
      summary:
        boundChangeText(`${kind} ${object} ${event.reason}: ${event.message}`, CHANGE_TEXT_CAPS.summary) ?? object,
      url: null,
      receivedAt: utcInstant(receivedAt),
    },
  };
}
