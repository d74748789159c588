import { createHash } from 'node:crypto';
import { findAlertmanagerMapping, TRIGGER_TEXT_CAPS } from '@diagnosis/core';
import * as v from 'valibot';
import { incidentOf, type TriggerConfig, type TriggerDecision } from './incident-facts.ts';

const labels = v.pipe(
  v.record(v.pipe(v.string(), v.maxLength(200)), v.pipe(v.string(), v.maxLength(2_000))),
  v.check((record) => Object.keys(record).length <= 100, 'at most 100 labels'),
);
const instant = v.pipe(
  v.string(),
  v.maxLength(64),
  v.check((text) => Number.isFinite(Date.parse(text))),
);

/**
 * Alertmanager's webhook payload, version 4, as its documentation gives it; `v.object` keeps fields Alertmanager adds
 * later from failing the request. At most 1,000 alerts are read (Alertmanager's own `max_alerts` cuts a group).
 */
const alertmanagerSchema = v.object({
  version: v.literal('4'),
  groupKey: v.pipe(v.string(), v.minLength(1), v.maxLength(TRIGGER_TEXT_CAPS.incidentKey - 64)),
  truncatedAlerts: v.optional(v.number()),
  status: v.picklist(['firing', 'resolved']),
  receiver: v.optional(v.string()),
  groupLabels: v.optional(labels, {}),
  commonLabels: v.optional(labels, {}),
  commonAnnotations: v.optional(labels, {}),
  externalURL: v.optional(v.string()),
  alerts: v.pipe(
    v.array(
      v.object({
        status: v.picklist(['firing', 'resolved']),
        labels: v.optional(labels, {}),
        annotations: v.optional(labels, {}),
        startsAt: instant,
        endsAt: v.optional(v.string()),
        fingerprint: v.optional(v.string()),
      }),
    ),
    v.minLength(1),
    v.maxLength(1_000),
  ),
});

/**
 * A webhook from Alertmanager. A firing group is an incident keyed by its `groupKey` and the earliest `startsAt` of its
 * firing alerts (a later notification of the same group is the same incident; the group firing again after it resolved
 * is a new one); the enterprise, service and question come from the first mapping whose labels all equal the group's
 * `commonLabels`. NOTE: Alertmanager sends no event id and no send time; the event id is the SHA-256 of the raw body.
 */
export function parseAlertmanagerWebhook(
  json: unknown,
  rawBody: Buffer,
  config: TriggerConfig,
  nowMs: number,
): TriggerDecision & { eventId?: string } {
  const parsed = v.safeParse(alertmanagerSchema, json);
  if (!parsed.success) return { kind: 'ignored', code: 'MALFORMED_EVENT' };
  const group = parsed.output;
  const firing = group.alerts.filter((alert) => alert.status === 'firing');
  if (group.status !== 'firing' || firing.length === 0) return { kind: 'ignored', code: 'NOT_FIRING' };
  const mapping = findAlertmanagerMapping(config.mappings, group.commonLabels);
  if (mapping === undefined) return { kind: 'ignored', code: 'UNMAPPED' };
  const startedAt = Math.min(...firing.map((alert) => Date.parse(alert.startsAt)));
  const annotations = group.commonAnnotations;
  return incidentOf(
    {
      source: 'alertmanager',
      incidentKey: `${group.groupKey}@${new Date(startedAt).toISOString()}`,
      eventId: alertmanagerEventId(rawBody),
      alarm: group.commonLabels.alertname ?? group.groupLabels.alertname ?? group.groupKey,
      reason: annotations.summary ?? annotations.description ?? `${firing.length} 条告警`,
      startedAt,
    },
    mapping,
    config,
    nowMs,
  );
}

/** Alertmanager's event id: the SHA-256 of the raw body (it sends none of its own). */
export function alertmanagerEventId(rawBody: Buffer): string {
  return `sha256:${createHash('sha256').update(rawBody).digest('hex')}`;
}
