import {
  buildIncidentQuery,
  buildIncidentWindow,
  type IncidentEvent,
  type IncidentEventKind,
  type TriggerMapping,
  type TriggerSource,
} from '@diagnosis/core';

/** What a trigger decided about one event: an incident to handle, or why it starts nothing. */
export type TriggerDecision = { kind: 'incident'; event: IncidentEvent } | { kind: 'ignored'; code: IgnoredCode };

/**
 * Why an event starts and records nothing (each is counted): an event that says nothing about an incident (a recovery
 * to OK, PagerDuty's `incident.annotated`…), no mapping for it, an incident that began too long ago (or in the future)
 * for a window, an event that is not of the documented shape, or a lifecycle event (acknowledged, resolved, ALARM →
 * ALARM) of an incident this deployment never opened.
 */
export const IGNORED_CODES = Object.freeze([
  'NOT_FIRING',
  'UNMAPPED',
  'STALE',
  'MALFORMED_EVENT',
  'NO_INCIDENT',
] as const);
export type IgnoredCode = (typeof IGNORED_CODES)[number];

/** What every trigger needs from the settings. */
export interface TriggerConfig {
  mappings: readonly TriggerMapping[];
  /** Default lookback before the incident's start (a mapping's `lookbackMinutes` wins). */
  lookbackMs: number;
  timeZone: string;
  /** The query's UTF-8 byte limit (DIAGNOSIS_MAX_QUERY_BYTES): the question is built to fit it. */
  maxQueryBytes: number;
}

/** The facts of an event, read by its source's parser. */
export interface IncidentFacts {
  source: TriggerSource;
  incidentKey: string;
  eventId: string;
  kind: IncidentEventKind;
  /** `FIRING` only: the earliest `startsAt` of the alerts firing in the notification (epoch ms). */
  firingSince?: number;
  alarm: string;
  reason: string;
  startedAt: number;
}

/**
 * The incident of a mapped event: the enterprise is the mapping's (never a text of the event), the query is the
 * system's template filled with the event's facts, the window runs from the incident's start minus the lookback to
 * now. An incident with no valid window (it began over 7 days ago, or in the future) is STALE.
 */
export function incidentOf(
  facts: IncidentFacts,
  mapping: TriggerMapping,
  config: TriggerConfig,
  nowMs: number,
): TriggerDecision {
  const lookbackMs = mapping.lookbackMinutes === undefined ? config.lookbackMs : mapping.lookbackMinutes * 60_000;
  const window = buildIncidentWindow(facts.startedAt, lookbackMs, nowMs);
  if (window === null) return { kind: 'ignored', code: 'STALE' };
  const query = buildIncidentQuery(
    {
      source: facts.source,
      alarm: facts.alarm,
      reason: facts.reason,
      startedAt: facts.startedAt,
      timeZone: config.timeZone,
      service: mapping.service,
    },
    mapping.query,
    config.maxQueryBytes,
  );
  return {
    kind: 'incident',
    event: {
      ref: { enterpriseId: mapping.enterpriseId, source: facts.source, incidentKey: facts.incidentKey },
      eventId: facts.eventId,
      kind: facts.kind,
      ...(facts.firingSince === undefined ? {} : { firingSince: facts.firingSince }),
      title: facts.alarm,
      startedAt: facts.startedAt,
      query,
      window,
    },
  };
}
