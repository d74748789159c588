/** The incident items (an incident and the events attached to it): their schemas and both directions, validated. */
import * as v from 'valibot';
import { issuePaths, RunStoreError } from '../../errors.ts';
import { boundTriggerTitle, INCIDENT_EVENT_KINDS, TRIGGER_SOURCES, TRIGGER_TEXT_CAPS } from '../../run/run-trigger.ts';
import { truncateChars } from '../../run/utf8.ts';
import {
  type IncidentEventRecord,
  type IncidentRef,
  incidentEventSortKey,
  incidentEventsPartitionKey,
  incidentKey,
  type StoredIncident,
} from '../incident-store.ts';
import { type Item, SCHEMA_VERSION, wellFormed } from './item.ts';

const text = (max: number) => v.pipe(v.string(), v.maxLength(max));
const count = v.pipe(v.number(), v.safeInteger(), v.minValue(0));

const incidentItemSchema = v.object({
  pk: v.string(),
  sk: v.literal('INCIDENT'),
  entity: v.literal('incident'),
  schema_version: v.literal(SCHEMA_VERSION),
  ttl: v.pipe(v.number(), v.integer()),
  enterprise_id: v.string(),
  source: v.picklist(TRIGGER_SOURCES),
  incident_key: text(TRIGGER_TEXT_CAPS.incidentKey),
  run_id: v.string(),
  session_id: v.string(),
  opened_at: v.string(),
  last_event_at: v.string(),
  event_count: count,
  run_count: count,
  // NOTE: absent while the incident fires (and on items written before lifecycle events were recorded).
  resolved_at: v.optional(v.string()),
});

const incidentEventItemSchema = v.object({
  pk: v.string(),
  sk: v.string(),
  entity: v.literal('incident_event'),
  schema_version: v.literal(SCHEMA_VERSION),
  ttl: v.pipe(v.number(), v.integer()),
  run_id: v.string(),
  sequence: v.pipe(count, v.minValue(1)),
  source: v.picklist(TRIGGER_SOURCES),
  // NOTE: items written before lifecycle events were recorded held firing events only.
  kind: v.optional(v.picklist(INCIDENT_EVENT_KINDS), 'FIRING'),
  event_id: text(TRIGGER_TEXT_CAPS.eventId),
  title: text(TRIGGER_TEXT_CAPS.title),
  received_at: v.string(),
});

function validated<T extends v.GenericSchema>(schema: T, item: unknown, what: string): v.InferOutput<T> {
  const result = v.safeParse(schema, item);
  if (!result.success) {
    const [path] = issuePaths(result.issues, 1);
    throw new RunStoreError('CORRUPT_ITEM', `${what} item fails its schema at ${path}`);
  }
  return result.output;
}

export function newIncidentItem(
  ref: IncidentRef,
  claim: { runId: string; sessionId: string; at: number },
  ttl: number,
) {
  const at = new Date(claim.at).toISOString();
  return validated(
    incidentItemSchema,
    wellFormed({
      ...incidentKey(ref),
      entity: 'incident',
      schema_version: SCHEMA_VERSION,
      ttl,
      enterprise_id: ref.enterpriseId,
      source: ref.source,
      incident_key: ref.incidentKey,
      run_id: claim.runId,
      session_id: claim.sessionId,
      opened_at: at,
      last_event_at: at,
      event_count: 0,
      run_count: 1,
    }),
    'incident',
  ) as Item;
}

export function incidentOf(item: Record<string, unknown>): StoredIncident {
  const incident = validated(incidentItemSchema, item, 'incident');
  return {
    enterpriseId: incident.enterprise_id,
    source: incident.source,
    incidentKey: incident.incident_key,
    runId: incident.run_id,
    sessionId: incident.session_id,
    openedAt: incident.opened_at,
    lastEventAt: incident.last_event_at,
    eventCount: incident.event_count,
    runCount: incident.run_count,
    resolvedAt: incident.resolved_at ?? null,
  };
}

export function incidentEventItem(
  runId: string,
  sequence: number,
  event: Pick<IncidentEventRecord, 'source' | 'kind' | 'eventId' | 'title'> & { at: number },
  ttl: number,
): Item {
  return validated(
    incidentEventItemSchema,
    wellFormed({
      pk: incidentEventsPartitionKey(runId),
      sk: incidentEventSortKey(sequence),
      entity: 'incident_event',
      schema_version: SCHEMA_VERSION,
      ttl,
      run_id: runId,
      sequence,
      source: event.source,
      kind: event.kind,
      event_id: truncateChars(event.eventId, TRIGGER_TEXT_CAPS.eventId),
      title: boundTriggerTitle(event.title),
      received_at: new Date(event.at).toISOString(),
    }),
    'incident_event',
  ) as Item;
}

export function incidentEventOf(item: Record<string, unknown>): IncidentEventRecord {
  const event = validated(incidentEventItemSchema, item, 'incident_event');
  return {
    runId: event.run_id,
    sequence: event.sequence,
    source: event.source,
    kind: event.kind,
    eventId: event.event_id,
    title: event.title,
    receivedAt: event.received_at,
  };
}
