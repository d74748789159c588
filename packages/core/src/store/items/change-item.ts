/**
 * The items of an enterprise's changes, in one partition per enterprise (`CHANGES#<enterpriseId>`): each change under
 * `AT#<at>#<changeId>` (so a Query of a range of sort keys reads the changes that landed in a time range, newest first
 * when asked), and its claim under `ID#<changeId>`, put in the same transaction, so a change is stored once whatever
 * time a redelivery says.
 */
import * as v from 'valibot';
import {
  CHANGE_ID_PATTERN,
  CHANGE_KINDS,
  CHANGE_SOURCES,
  CHANGE_TEXT_CAPS,
  type ChangeRecord,
  changeIdOf,
} from '../../change/change-record.ts';
import { RunStoreError } from '../../errors.ts';
import { ENTERPRISE_ID_PATTERN } from '../../run/ids.ts';
import type { StoredChange } from '../change-store.ts';
import { type Item, SCHEMA_VERSION, ttlFor, validatedItem } from './item.ts';

/** The enterprise's partition. NOTE: built only from a checked enterprise id, so no other partition can be named. */
export function changePartitionKey(enterpriseId: string): string {
  if (!ENTERPRISE_ID_PATTERN.test(enterpriseId)) throw new RunStoreError('CORRUPT_ITEM', 'invalid enterprise id');
  return `CHANGES#${enterpriseId}`;
}
const CHANGE_SORT_KEY_PREFIX = 'AT#';
const changeSortKey = (at: string, id: string) => `${CHANGE_SORT_KEY_PREFIX}${at}#${id}`;
const changeClaimSortKey = (id: string) => `ID#${id}`;
/** The sort key below every change that landed at or after `atMs` (and the one above all before it). */
export const changeSortKeyFrom = (atMs: number) => `${CHANGE_SORT_KEY_PREFIX}${new Date(atMs).toISOString()}`;
/** The sort key above every change that landed at or before `atMs`. */
export const changeSortKeyTo = (atMs: number) => `${CHANGE_SORT_KEY_PREFIX}${new Date(atMs).toISOString()}#~`;

const UTC_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const text = (max: number) => v.pipe(v.string(), v.minLength(1), v.maxLength(max));

/** Built on first use (NOTE: not at import: Diagnose loads this module and reads changes only on a change query). */
let schema: ReturnType<typeof buildChangeItemSchema> | undefined;
function buildChangeItemSchema() {
  return v.object({
    pk: v.string(),
    sk: v.string(),
    entity: v.literal('change'),
    schema_version: v.literal(SCHEMA_VERSION),
    ttl: v.pipe(v.number(), v.integer()),
    id: v.pipe(v.string(), v.regex(CHANGE_ID_PATTERN)),
    enterprise_id: v.pipe(v.string(), v.regex(ENTERPRISE_ID_PATTERN)),
    source: v.picklist(CHANGE_SOURCES),
    origin: text(CHANGE_TEXT_CAPS.origin),
    event_id: text(CHANGE_TEXT_CAPS.eventId),
    at: v.pipe(v.string(), v.regex(UTC_INSTANT)),
    service: v.nullable(text(CHANGE_TEXT_CAPS.service)),
    environment: v.nullable(text(CHANGE_TEXT_CAPS.environment)),
    kind: v.picklist(CHANGE_KINDS),
    ref: v.nullable(text(CHANGE_TEXT_CAPS.ref)),
    actor: v.nullable(text(CHANGE_TEXT_CAPS.actor)),
    summary: text(CHANGE_TEXT_CAPS.summary),
    url: v.nullable(text(CHANGE_TEXT_CAPS.url)),
    received_at: v.pipe(v.string(), v.regex(UTC_INSTANT)),
  });
}
const changeItemSchema = () => {
  schema ??= buildChangeItemSchema();
  return schema;
};

/**
 * A change's item and its claim, both kept `retentionDays` after the change landed. NOTE: checked against the item's
 * schema before anything is sent, so a change of the wrong shape is refused whole (`CORRUPT_ITEM`), never half-written.
 */
export function changeItems(change: ChangeRecord, retentionDays: number): { change: Item; claim: Item } {
  const id = changeIdOf(change.source, change.origin, change.eventId);
  const pk = changePartitionKey(change.enterpriseId);
  const ttl = ttlFor(Date.parse(change.at), retentionDays);
  const item = validatedItem(
    changeItemSchema(),
    {
      pk,
      sk: changeSortKey(change.at, id),
      entity: 'change',
      schema_version: SCHEMA_VERSION,
      ttl,
      id,
      enterprise_id: change.enterpriseId,
      source: change.source,
      origin: change.origin,
      event_id: change.eventId,
      at: change.at,
      service: change.service,
      environment: change.environment,
      kind: change.kind,
      ref: change.ref,
      actor: change.actor,
      summary: change.summary,
      url: change.url,
      received_at: change.receivedAt,
    },
    'change',
  );
  return {
    change: item,
    claim: { pk, sk: changeClaimSortKey(id), entity: 'change_claim', schema_version: SCHEMA_VERSION, ttl, at: item.sk },
  };
}

/**
 * A change read back, checked; the enterprise must be the partition's (an item of another enterprise, however it got
 * there, is refused).
 */
export function changeOf(item: unknown, enterpriseId: string): StoredChange {
  const parsed = validatedItem(changeItemSchema(), item, 'change');
  if (parsed.enterprise_id !== enterpriseId || parsed.pk !== changePartitionKey(enterpriseId)) {
    throw new RunStoreError('CORRUPT_ITEM', 'change item of another partition');
  }
  return {
    id: parsed.id,
    enterpriseId: parsed.enterprise_id,
    source: parsed.source,
    origin: parsed.origin,
    eventId: parsed.event_id,
    at: parsed.at,
    service: parsed.service,
    environment: parsed.environment,
    kind: parsed.kind,
    ref: parsed.ref,
    actor: parsed.actor,
    summary: parsed.summary,
    url: parsed.url,
    receivedAt: parsed.received_at,
  };
}
