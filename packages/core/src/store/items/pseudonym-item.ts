/**
 * The pseudonym item (`PSEUDONYMS#<runId>` / `MAP#0001`, …): one sealed batch of a run's pseudonym map, the real
 * values behind the pseudonyms the model saw, encrypted with the run's map key.
 */
import * as v from 'valibot';
import type { PseudonymBatchEvent } from '../audit-hook.ts';
import type { StoredPseudonymBatch } from '../run-store.ts';
import { ITEM_BASE_ENTRIES, ITEM_CAPS, type Item, SCHEMA_VERSION, ttlFor, validatedItem } from './item.ts';

/**
 * The partition of a run's pseudonym map. NOTE: its own partition key, like the reasoning's, so that only the reveal
 * reader's IAM role can reach it (`dynamodb:LeadingKeys`).
 */
export const pseudonymPartitionKey = (runId: string) => `PSEUDONYMS#${runId}`;
export const pseudonymSortKey = (sequence: number) => `MAP#${String(sequence).padStart(4, '0')}`;
export const PSEUDONYM_SORT_KEY_PATTERN = /MAP#\d{4}/;

/** One sealed batch of a run's pseudonym map, in the run's pseudonym partition. */
const pseudonymItemSchema = v.object({
  ...ITEM_BASE_ENTRIES,
  entity: v.literal('pseudonym_map'),
  run_id: v.string(),
  sequence: v.pipe(v.number(), v.integer(), v.minValue(1)),
  count: v.pipe(v.number(), v.integer(), v.minValue(0)),
  iv: v.pipe(v.string(), v.maxLength(64)),
  tag: v.pipe(v.string(), v.maxLength(64)),
  ciphertext: v.pipe(v.string(), v.maxLength(ITEM_CAPS.pseudonymBatchChars)),
  /** 2: run id and sequence bound as additional data; absent: a batch sealed before (docs/masking.md). */
  seal_version: v.optional(v.literal(2)),
});

/** A sealed batch of the run's pseudonym map, in its own partition, kept `retentionDays` (the map's retention). */
export function pseudonymItem(event: PseudonymBatchEvent, nowMs: number, retentionDays: number): Item {
  return validatedItem(
    pseudonymItemSchema,
    {
      pk: pseudonymPartitionKey(event.runId),
      sk: pseudonymSortKey(event.sequence),
      entity: 'pseudonym_map',
      schema_version: SCHEMA_VERSION,
      ttl: ttlFor(nowMs, retentionDays),
      run_id: event.runId,
      sequence: event.sequence,
      count: event.count,
      iv: event.sealed.iv,
      tag: event.sealed.tag,
      ciphertext: event.sealed.ciphertext,
      ...(event.sealed.version === undefined ? {} : { seal_version: event.sealed.version }),
    },
    'pseudonym_map',
  ) as Item;
}

/** Reads one pseudonym batch back (still sealed), validating it against its schema. */
export function pseudonymBatchOf(item: Record<string, unknown>): StoredPseudonymBatch {
  const batch = validatedItem(pseudonymItemSchema, item, 'pseudonym_map');
  return {
    entity: 'pseudonym_map',
    runId: batch.run_id,
    sequence: batch.sequence,
    count: batch.count,
    sealed: {
      iv: batch.iv,
      tag: batch.tag,
      ciphertext: batch.ciphertext,
      ...(batch.seal_version === undefined ? {} : { version: batch.seal_version }),
    },
  };
}
