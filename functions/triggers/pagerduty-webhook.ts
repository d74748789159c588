import { findPagerDutyMapping, type IncidentEventKind, TRIGGER_TEXT_CAPS } from '@diagnosis/core';
import * as v from 'valibot';
import { incidentOf, type TriggerConfig, type TriggerDecision } from './incident-facts.ts';

const text = (max: number) => v.pipe(v.string(), v.maxLength(max));
const instant = v.pipe(
  v.string(),
  v.maxLength(64),
  v.check((value) => Number.isFinite(Date.parse(value))),
);

/**
 * A PagerDuty v3 webhook body, `{ event: { id, event_type, resource_type, occurred_at, data } }`, as PagerDuty
 * documents it; only the fields read are checked (`v.object`: PagerDuty adds fields).
 */
const pagerDutySchema = v.object({
  event: v.object({
    id: v.pipe(v.string(), v.minLength(1), v.maxLength(TRIGGER_TEXT_CAPS.eventId)),
    event_type: text(100),
    resource_type: v.optional(text(100)),
    occurred_at: instant,
    data: v.object({
      id: v.pipe(v.string(), v.minLength(1), v.maxLength(100)),
      type: v.optional(text(100)),
      title: v.optional(text(2_000), ''),
      created_at: v.optional(instant),
      urgency: v.optional(text(50)),
      service: v.object({ id: v.pipe(v.string(), v.minLength(1), v.maxLength(100)), summary: v.optional(text(500)) }),
    }),
  }),
});

/** The id and send time of a PagerDuty webhook, read before its replay and staleness checks. */
export function pagerDutyEnvelope(json: unknown): { eventId: string; occurredAt: number } | null {
  const parsed = v.safeParse(pagerDutySchema, json);
  if (!parsed.success) return null;
  return { eventId: parsed.output.event.id, occurredAt: Date.parse(parsed.output.event.occurred_at) };
}

/** What each PagerDuty incident event type says about the incident; other types say nothing and are ignored. */
const KINDS: Readonly<Record<string, IncidentEventKind>> = Object.freeze({
  'incident.triggered': 'TRIGGERED',
  'incident.reopened': 'REOPENED',
  'incident.acknowledged': 'ACKNOWLEDGED',
  'incident.resolved': 'RESOLVED',
});

/**
 * A webhook from PagerDuty: an incident keyed by the PagerDuty incident id. `incident.triggered` opens it,
 * `incident.reopened` is a re-fire, `incident.acknowledged` and `.resolved` are recorded on its run; the enterprise,
 * service and question come from the mapping of the incident's service id. Other event types start nothing.
 */
export function parsePagerDutyWebhook(json: unknown, config: TriggerConfig, nowMs: number): TriggerDecision {
  const parsed = v.safeParse(pagerDutySchema, json);
  if (!parsed.success) return { kind: 'ignored', code: 'MALFORMED_EVENT' };
  const { event } = parsed.output;
  const kind = Object.hasOwn(KINDS, event.event_type) ? KINDS[event.event_type] : undefined;
  if (kind === undefined) return { kind: 'ignored', code: 'NOT_FIRING' };
  const mapping = findPagerDutyMapping(config.mappings, event.data.service.id);
  if (mapping === undefined) return { kind: 'ignored', code: 'UNMAPPED' };
  const startedAt = Date.parse(event.data.created_at ?? event.occurred_at);
  return incidentOf(
    {
      source: 'pagerduty',
      incidentKey: event.data.id,
      eventId: event.id,
      kind,
      alarm: event.data.title || event.data.id,
      reason: [
        event.data.service.summary === undefined ? null : `服务 ${event.data.service.summary}`,
        event.data.urgency === undefined ? null : `紧急度 ${event.data.urgency}`,
      ]
        .filter((part) => part !== null)
        .join('，'),
      startedAt,
    },
    mapping,
    config,
    nowMs,
  );
}
