/**
 * The in-memory twin of `createDynamoDeliveryStore` (tests, the local runner): the same items, built and read by the
 * same item module (`delivery-items.ts`), the same conditions, held to the same contract suite.
 */
import type { Item } from '@diagnosis/core/store';
import { deliveryAttemptItem, deliveryKey, deliveryRecordOf } from './delivery-items.ts';
import {
  type AttemptClaim,
  DEFAULT_DELIVERY_RETENTION_DAYS,
  type DeliveryKey,
  type DeliveryStore,
  isRecordOfRun,
  readableRecord,
  shownRecord,
} from './delivery-store.ts';

export type MemoryDeliveryStore = DeliveryStore & { readonly items: ReadonlyMap<string, Item> };

export function createMemoryDeliveryStore(options: { retentionDays?: number } = {}): MemoryDeliveryStore {
  const items = new Map<string, Item>();
  const retentionDays = options.retentionDays ?? DEFAULT_DELIVERY_RETENTION_DAYS;
  const keyOf = (key: { pk: string; sk: string }) => `${key.pk}|${key.sk}`;
  const iso = (ms: number) => new Date(ms).toISOString();
  /** The key's record, when there is one and it is this enterprise's (else the adapter's condition fails). */
  const ownRecord = (key: DeliveryKey) => {
    const item = items.get(keyOf(deliveryKey(key)));
    if (item === undefined || deliveryRecordOf(item).enterpriseId !== key.enterpriseId) {
      throw new Error('no such delivery');
    }
    return item;
  };
  /** Writes the item with `set` applied, checked like every item. */
  const write = (item: Item, set: Record<string, unknown>) => {
    const next: Item = { ...item, ...set };
    deliveryRecordOf(next);
    items.set(keyOf(next), structuredClone(next));
  };
  return {
    items,
    async beginAttempt(key, nowMs, leaseMs): Promise<AttemptClaim> {
      const first = deliveryAttemptItem(key, nowMs, leaseMs, retentionDays);
      let item = items.get(keyOf(first));
      let record = item === undefined ? null : deliveryRecordOf(item);
      // Last written before this run existed: an earlier run's under this id (see DeliveryKey), replaced.
      if (record !== null && record.updatedAt < key.runCreatedAt) {
        items.delete(keyOf(first));
        item = undefined;
        record = null;
      }
      if (item === undefined || record === null) {
        write(first, {});
        return { taken: true, attempt: 1 };
      }
      if (record.enterpriseId !== key.enterpriseId) return { taken: false, reason: 'BUSY' };
      if (record.status === 'DELIVERED') return { taken: false, reason: 'DELIVERED' };
      if (record.status === 'SENDING' && (record.leaseUntil ?? 0) >= nowMs) return { taken: false, reason: 'BUSY' };
      const attempts = record.attempts + 1;
      // NOTE: the values a first attempt writes, but the attempts counted on and the record's own `ttl` kept.
      const { ttl: _ttl, attempts: _attempts, last_error: _error, delivered_at: _delivered, ...values } = first;
      write(item, { ...values, attempts });
      return { taken: true, attempt: attempts };
    },
    async recordDelivered(key, nowMs) {
      const item = ownRecord(key);
      const { lease_until: _lease, ...rest } = item;
      write(rest as Item, { status: 'DELIVERED', delivered_at: iso(nowMs), updated_at: iso(nowMs), last_error: null });
    },
    async recordFailure(key, code, final, nowMs) {
      const item = ownRecord(key);
      if (deliveryRecordOf(item).status === 'DELIVERED') return;
      const { lease_until: _lease, ...rest } = item;
      write(rest as Item, { status: final ? 'DEAD_LETTERED' : 'RETRYING', last_error: code, updated_at: iso(nowMs) });
    },
    async listDeliveries(run) {
      const partition = `${deliveryKey({ runId: run.runId, destinationId: '' }).pk}|`;
      return [...items.entries()]
        .filter(([key]) => key.startsWith(partition))
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .flatMap(([, item]) => {
          const record = readableRecord(item);
          return record !== null && isRecordOfRun(record, run) ? [shownRecord(record)] : [];
        });
    },
  };
}
