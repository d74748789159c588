/**
 * The items of an enterprise's past incidents, in one partition per enterprise (`PAST#<enterpriseId>`): the memory of
 * a run (`AT#<occurredAt>#<runId>`, so a Query newest first reads the most recent ones and nothing else) and the
 * run's state (`RUN#<runId>`: which memory item is the run's, or that it was retracted for good).
 */
import * as v from 'valibot';
import { DiagnosisInputError, RunStoreError } from '../../errors.ts';
import { ENTERPRISE_ID_PATTERN, RUN_ID_PATTERN } from '../../run/ids.ts';
import {
  PAST_INCIDENT_LIMITS,
  type PastIncident,
  REMEMBERED_VERDICTS,
  RETRACTION_REASONS,
  type RetractionReason,
  type UnreadablePastIncident,
} from '../past-incident-store.ts';
import { type Item, SCHEMA_VERSION, validatedItem } from './item.ts';

/** The enterprise's partition. NOTE: built only from a checked enterprise id, so no other partition can be named. */
export function pastIncidentPartitionKey(enterpriseId: string): string {
  if (!ENTERPRISE_ID_PATTERN.test(enterpriseId)) throw new RunStoreError('CORRUPT_ITEM', 'invalid enterprise id');
  return `PAST#${enterpriseId}`;
}
export const PAST_INCIDENT_SORT_KEY_PREFIX = 'AT#';
/** How long a tombstone is kept: past the longest a memory it keeps out could have lived (two years). */
export const TOMBSTONE_MS = 2 * 365 * 86_400_000;
const pastIncidentSortKey = (occurredAt: string, runId: string) =>
  `${PAST_INCIDENT_SORT_KEY_PREFIX}${occurredAt}#${runId}`;
export const pastIncidentStateSortKey = (runId: string) => `RUN#${runId}`;
/** A memory item's sort key: the run's creation (ISO, UTC) and its id. */
const PAST_INCIDENT_SORT_KEY_PATTERN =
  /^AT#\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z#[A-Za-z0-9][A-Za-z0-9_.-]{0,79}$/;

/** A value built by `build` on the first call, then the same one. */
function lazily<T>(build: () => T): () => T {
  let value: T | undefined;
  return () => {
    value ??= build();
    return value;
  };
}

const boundedText = (max: number) => v.pipe(v.string(), v.minLength(1), v.maxLength(max));

/** Built on first use (NOTE: not at import: Diagnose loads this module and reads a memory only on a lookup). */
const pastIncidentItemSchema = /* @__PURE__ */ lazily(() =>
  v.object({
    pk: v.string(),
    sk: v.pipe(v.string(), v.regex(PAST_INCIDENT_SORT_KEY_PATTERN)),
    entity: v.literal('past_incident'),
    schema_version: v.literal(SCHEMA_VERSION),
    ttl: v.pipe(v.number(), v.integer()),
    enterprise_id: v.pipe(v.string(), v.regex(ENTERPRISE_ID_PATTERN)),
    run_id: v.pipe(v.string(), v.regex(RUN_ID_PATTERN)),
    occurred_at: v.string(),
    services: v.pipe(
      v.array(boundedText(PAST_INCIDENT_LIMITS.serviceChars)),
      v.maxLength(PAST_INCIDENT_LIMITS.services),
    ),
    conclusion: boundedText(PAST_INCIDENT_LIMITS.conclusionChars),
    root_cause: v.nullable(boundedText(PAST_INCIDENT_LIMITS.rootCauseChars)),
    rating: v.picklist(REMEMBERED_VERDICTS),
    rated_at: v.string(),
    expires_at: v.pipe(v.number(), v.integer()),
  }),
);

const pastIncidentStateSchema = /* @__PURE__ */ lazily(() =>
  v.object({
    pk: v.string(),
    sk: v.pipe(v.string(), v.regex(/^RUN#/)),
    entity: v.literal('past_incident_state'),
    schema_version: v.literal(SCHEMA_VERSION),
    ttl: v.pipe(v.number(), v.integer()),
    state: v.picklist(['ACTIVE', 'RETRACTED']),
    memory_sk: v.nullable(v.string()),
    reason: v.nullable(v.picklist(RETRACTION_REASONS)),
    updated_at: v.string(),
  }),
);

/** The memory item. NOTE: its `ttl` is its own expiry, so DynamoDB deletes it; reads check `expires_at` anyway. */
export function pastIncidentItem(incident: PastIncident): Item {
  const item = {
    pk: pastIncidentPartitionKey(incident.enterpriseId),
    sk: pastIncidentSortKey(incident.occurredAt, incident.runId),
    entity: 'past_incident',
    schema_version: SCHEMA_VERSION,
    ttl: Math.ceil(incident.expiresAt / 1_000),
    enterprise_id: incident.enterpriseId,
    run_id: incident.runId,
    occurred_at: incident.occurredAt,
    services: incident.services,
    conclusion: incident.conclusion,
    root_cause: incident.rootCause,
    rating: incident.rating,
    rated_at: incident.ratedAt,
    expires_at: incident.expiresAt,
  };
  return validatedItem(pastIncidentItemSchema(), item, 'past incident') as Item;
}

/**
 * A memory item read back. NOTE: an item of another enterprise than the partition's, or one whose key does not match
 * its own run, is corrupt: it is refused, never returned.
 */
export function pastIncidentOf(item: Record<string, unknown>, enterpriseId: string): PastIncident {
  const stored = validatedItem(pastIncidentItemSchema(), item, 'past incident');
  if (
    stored.enterprise_id !== enterpriseId ||
    stored.pk !== pastIncidentPartitionKey(enterpriseId) ||
    stored.sk !== pastIncidentSortKey(stored.occurred_at, stored.run_id)
  ) {
    throw new RunStoreError('CORRUPT_ITEM', 'past incident item is not of its partition');
  }
  return {
    enterpriseId: stored.enterprise_id,
    runId: stored.run_id,
    occurredAt: stored.occurred_at,
    services: stored.services,
    conclusion: stored.conclusion,
    rootCause: stored.root_cause,
    rating: stored.rating,
    ratedAt: stored.rated_at,
    expiresAt: stored.expires_at,
  };
}

/**
 * The readable, unexpired memories among `items`, in their order. NOTE: an item that fails `pastIncidentOf` is
 * skipped and told by its error's class and code (never its content); an error that is not an item's fault is thrown.
 */
export function readablePastIncidents(
  items: readonly Record<string, unknown>[],
  enterpriseId: string,
  now: number,
  onUnreadable?: UnreadablePastIncident,
): PastIncident[] {
  const incidents: PastIncident[] = [];
  for (const item of items) {
    let incident: PastIncident;
    try {
      incident = pastIncidentOf(item, enterpriseId);
    } catch (error) {
      if (!(error instanceof RunStoreError)) throw error;
      onUnreadable?.(error.name, error.code);
      continue;
    }
    if (incident.expiresAt > now) incidents.push(incident);
  }
  return incidents;
}

/** The run's state item: its active memory, or a tombstone (kept as long as the longest memory could be). */
export function pastIncidentStateItem(
  enterpriseId: string,
  runId: string,
  state: { memorySk: string; expiresAt: number } | { retracted: RetractionReason; expiresAt: number },
  updatedAt: string,
): Item {
  const item = {
    pk: pastIncidentPartitionKey(enterpriseId),
    sk: pastIncidentStateSortKey(runId),
    entity: 'past_incident_state',
    schema_version: SCHEMA_VERSION,
    ttl: Math.ceil(state.expiresAt / 1_000),
    state: 'memorySk' in state ? 'ACTIVE' : 'RETRACTED',
    memory_sk: 'memorySk' in state ? state.memorySk : null,
    reason: 'retracted' in state ? state.retracted : null,
    updated_at: updatedAt,
  };
  return validatedItem(pastIncidentStateSchema(), item, 'past incident state') as Item;
}

export type PastIncidentState = v.InferOutput<ReturnType<typeof pastIncidentStateSchema>>;

export function pastIncidentStateOf(item: Record<string, unknown>): PastIncidentState {
  return validatedItem(pastIncidentStateSchema(), item, 'past incident state');
}

/** The opaque cursor of a listing page: the page's last memory key (the partition is always the caller's own). */
export function encodePastIncidentCursor(sk: string): string {
  return Buffer.from(sk, 'utf8').toString('base64url');
}

/** The sort key a cursor stands for; anything this store could not have written is refused (`INVALID_CURSOR`). */
export function decodePastIncidentCursor(cursor: string): string {
  const sk = cursor.length > 400 ? '' : Buffer.from(cursor, 'base64url').toString('utf8');
  if (!PAST_INCIDENT_SORT_KEY_PATTERN.test(sk))
    throw new DiagnosisInputError('INVALID_CURSOR', 'the cursor is not one this listing gave');
  return sk;
}
