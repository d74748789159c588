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
  groupKey: v.pipe(v.string(), v.minLength(1), v.maxLength(TRIGGER_TEXT_CAPS.incidentKey)),
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
 * A webhook from Alertmanager. The incident is the alert group: its key is the `groupKey`, which Alertmanager keeps
 * for the group's whole life, whatever alerts join it, resolve or repeat. A notification with firing alerts is
 * `FIRING` (its earliest firing `startsAt` is when this episode began); a resolved group is `RESOLVED`. Whether a
 * firing notification begins a new episode is decided against the stored incident (see `handleIncidentEvent`): one
 * notification can mix resolved and firing alerts, and Alertmanager drops an alert from the group once a notification
 * said it resolved, so no time read from one notification stays the same for the group's life. The enterprise, service
 * and question come from the first mapping whose labels all equal the group's `commonLabels`. NOTE: Alertmanager sends
 * no event id and no send time; the event id is the SHA-256 of the raw body.
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
  // NOTE: a group whose status disagrees with its alerts is not of the documented shape.
  if ((group.status === 'firing') !== firing.length > 0) return { kind: 'ignored', code: 'MALFORMED_EVENT' };
  const mapping = findAlertmanagerMapping(config.mappings, group.commonLabels);
  if (mapping === undefined) return { kind: 'ignored', code: 'UNMAPPED' };
  const startedAt = Math.min(...(firing.length > 0 ? firing : group.alerts).map((alert) => Date.parse(alert.startsAt)));
  const annotations = group.commonAnnotations;
  return incidentOf(
    {
      source: 'alertmanager',
      incidentKey: group.groupKey,
      eventId: alertmanagerEventId(rawBody),
      ...(firing.length > 0 ? { kind: 'FIRING', firingSince: startedAt } : { kind: 'RESOLVED' }),
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
