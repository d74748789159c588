/**
 * The delivery record's item, on core's item conventions (`entity`, `schema_version`, `ttl`, every string made
 * well-formed, validated on the way in and out): one item per run × destination in the run's delivery partition,
 * `DELIVERY#<runId>` / `DEST#<destinationId>` (`delivery`), beside the run's (the run's item is written by its
 * lifecycle only, so a delivery can never change a run's outcome). Kept `RETENTION_DAYS` after its first attempt,
 * like the run's items.
 */
import { type Item, SCHEMA_VERSION, ttlFor, validatedItem } from '@diagnosis/core/store';
import * as v from 'valibot';
import { DESTINATION_TYPES } from './destinations.ts';

export const DELIVERY_STATUSES = Object.freeze(['SENDING', 'DELIVERED', 'RETRYING', 'DEAD_LETTERED'] as const);
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const deliveryPartitionKey = (runId: string) => `DELIVERY#${runId}`;
export const deliveryKey = (key: { runId: string; destinationId: string }) => ({
  pk: deliveryPartitionKey(key.runId),
  sk: `DEST#${key.destinationId}`,
});

/** The longest id, code or instant a record keeps (ids come from the stage file; codes and instants are ours). */
const MAX_TEXT_CHARS = 256;
const text = () => v.pipe(v.string(), v.maxLength(MAX_TEXT_CHARS));
const count = () => v.pipe(v.number(), v.safeInteger(), v.minValue(0));

/** Built on first use (NOTE: not at import: GetRun loads this module and reads deliveries only for a run's view). */
let schema: ReturnType<typeof buildDeliveryItemSchema> | undefined;
function buildDeliveryItemSchema() {
  return v.object({
    pk: v.string(),
    sk: v.string(),
    entity: v.literal('delivery'),
    // NOTE: records written before the delivery item had a version read as version 1 (the same attributes).
    schema_version: v.optional(v.literal(SCHEMA_VERSION), SCHEMA_VERSION),
    ttl: v.pipe(v.number(), v.integer()),
    run_id: v.optional(text()),
    enterprise_id: text(),
    destination_id: text(),
    destination_type: v.picklist(DESTINATION_TYPES),
    status: v.picklist(DELIVERY_STATUSES),
    attempts: count(),
    last_error: v.optional(v.nullable(text()), null),
    updated_at: text(),
    delivered_at: v.optional(v.nullable(text()), null),
    lease_until: v.optional(count()),
  });
}
const deliveryItemSchema = () => {
  schema ??= buildDeliveryItemSchema();
  return schema;
};

export interface DeliveryAttemptKey {
  runId: string;
  enterpriseId: string;
  destinationId: string;
  destinationType: (typeof DESTINATION_TYPES)[number];
}

/**
 * The item of a run × destination's first attempt (status SENDING, one attempt, held until `nowMs + leaseMs`), checked
 * against the item's schema before anything is sent: a key of the wrong shape is refused whole (`CORRUPT_ITEM`).
 */
export function deliveryAttemptItem(
  key: DeliveryAttemptKey,
  nowMs: number,
  leaseMs: number,
  retentionDays: number,
): Item {
  return validatedItem(
    deliveryItemSchema(),
    {
      ...deliveryKey(key),
      entity: 'delivery',
      schema_version: SCHEMA_VERSION,
      ttl: ttlFor(nowMs, retentionDays),
      run_id: key.runId,
      enterprise_id: key.enterpriseId,
      destination_id: key.destinationId,
      destination_type: key.destinationType,
      status: 'SENDING',
      attempts: 1,
      last_error: null,
      updated_at: new Date(nowMs).toISOString(),
      delivered_at: null,
      lease_until: nowMs + leaseMs,
    },
    'delivery',
  ) as Item;
}

/** A record read back, checked (`CORRUPT_ITEM` when it fails its schema). */
export function deliveryRecordOf(item: unknown) {
  const record = validatedItem(deliveryItemSchema(), item, 'delivery');
  return {
    enterpriseId: record.enterprise_id,
    destinationId: record.destination_id,
    destinationType: record.destination_type,
    status: record.status,
    attempts: record.attempts,
    lastError: record.last_error,
    updatedAt: record.updated_at,
    deliveredAt: record.delivered_at,
    leaseUntil: record.lease_until ?? null,
  };
}
