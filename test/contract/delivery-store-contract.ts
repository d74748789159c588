import { describe, expect, it } from 'vitest';
import type { DeliveryKey, DeliveryStore } from '../../functions/delivery/delivery-store.ts';

const T0 = Date.parse('2026-11-30T06:10:00Z');

/** A store under test (kept `retentionDays`, its default when unset) and the raw item it keeps at a key. */
export interface DeliveryStoreUnderTest {
  store: DeliveryStore;
  rawItem(key: { pk: string; sk: string }): Promise<Record<string, unknown> | undefined>;
}

/** The contract of `DeliveryStore`, run against the in-memory twin and the DynamoDB adapter alike. */
export function describeDeliveryStoreContract(
  name: string,
  create: (options?: { retentionDays?: number }) => Promise<DeliveryStoreUnderTest>,
) {
  describe(`DeliveryStore contract (${name})`, () => {
    let count = 0;
    const key = (over: Partial<DeliveryKey> = {}): DeliveryKey => {
      count += 1;
      return {
        runId: `run-${name.replace(/\W/g, '')}-${count}`,
        enterpriseId: 'E1001',
        destinationId: 'oncall',
        destinationType: 'slack',
        runCreatedAt: new Date(T0 - 60_000).toISOString(),
        ...over,
      };
    };
    /** The run a key's records belong to, as `GET /runs/{id}` reads them. */
    const runOf = (k: DeliveryKey) => ({ runId: k.runId, enterpriseId: k.enterpriseId, createdAt: k.runCreatedAt });

    it('takes an attempt, counts attempts, and refuses a new one once delivered', async () => {
      const { store } = await create();
      const k = key();
      expect(await store.beginAttempt(k, T0, 1_000)).toEqual({ taken: true, attempt: 1 });
      await store.recordFailure(k, 'HTTP_500', false, T0 + 10);
      expect(await store.beginAttempt(k, T0 + 20, 1_000)).toEqual({ taken: true, attempt: 2 });
      await store.recordDelivered(k, T0 + 30);
      expect(await store.beginAttempt(k, T0 + 40, 1_000)).toEqual({ taken: false, reason: 'DELIVERED' });
      expect(await store.listDeliveries(runOf(k))).toEqual([
        {
          destinationId: 'oncall',
          destinationType: 'slack',
          status: 'DELIVERED',
          attempts: 2,
          lastError: null,
          updatedAt: new Date(T0 + 30).toISOString(),
          deliveredAt: new Date(T0 + 30).toISOString(),
        },
      ]);
    });

    it('holds an attempt until its lease ends, then lets another take it', async () => {
      const { store } = await create();
      const k = key();
      await store.beginAttempt(k, T0, 1_000);
      expect(await store.beginAttempt(k, T0 + 999, 1_000)).toEqual({ taken: false, reason: 'BUSY' });
      expect(await store.beginAttempt(k, T0 + 1_001, 1_000)).toEqual({ taken: true, attempt: 2 });
    });

    it('marks the last failure DEAD_LETTERED with its code and never overwrites a delivery', async () => {
      const { store } = await create();
      const k = key({ destinationId: 'itsm', destinationType: 'webhook' });
      await store.beginAttempt(k, T0, 1_000);
      await store.recordFailure(k, 'TIMEOUT', true, T0 + 1);
      expect(await store.listDeliveries(runOf(k))).toMatchObject([
        { status: 'DEAD_LETTERED', lastError: 'TIMEOUT', attempts: 1 },
      ]);
      const delivered = key();
      await store.beginAttempt(delivered, T0, 1_000);
      await store.recordDelivered(delivered, T0 + 1);
      await store.recordFailure(delivered, 'HTTP_500', true, T0 + 2);
      expect(await store.listDeliveries(runOf(delivered))).toMatchObject([{ status: 'DELIVERED', lastError: null }]);
    });

    it("keeps a run's records to its enterprise and lists only that run's", async () => {
      const { store } = await create();
      const k = key();
      await store.beginAttempt(k, T0, 1_000);
      await store.recordDelivered(k, T0);
      expect(await store.beginAttempt({ ...k, enterpriseId: 'E2002' }, T0 + 5_000, 1_000)).toMatchObject({
        taken: false,
      });
      await expect(store.recordDelivered({ ...k, enterpriseId: 'E2002' }, T0)).rejects.toThrow();
      expect(await store.listDeliveries({ ...runOf(k), runId: `${k.runId}0` })).toEqual([]);
      expect(await store.listDeliveries({ ...runOf(k), runId: 'run-unknown' })).toEqual([]);
      // The same run read as another enterprise's: none of its records.
      expect(await store.listDeliveries({ ...runOf(k), enterpriseId: 'E2002' })).toEqual([]);
    });

    // A run id is the caller's choice and free again once its run item expired; its delivery records may outlive it.
    it("gives a run id reused after expiry its own deliveries: never the earlier run's records, never refused by them", async () => {
      const { store } = await create();
      const earlier = key();
      await store.beginAttempt(earlier, T0, 1_000);
      await store.recordDelivered(earlier, T0 + 10);
      let previous = earlier;
      for (const [enterpriseId, createdAt] of [
        ['E2002', '2027-03-01T00:00:00.000Z'],
        ['E1001', '2027-06-01T00:00:00.000Z'],
      ] as const) {
        const later = Date.parse(createdAt);
        const reused = { ...earlier, enterpriseId, runCreatedAt: createdAt };
        expect(await store.listDeliveries(runOf(reused))).toEqual([]);
        expect(await store.beginAttempt(reused, later + 5_000, 1_000)).toEqual({ taken: true, attempt: 1 });
        await store.recordDelivered(reused, later + 5_010);
        expect(await store.listDeliveries(runOf(reused))).toMatchObject([{ status: 'DELIVERED', attempts: 1 }]);
        expect(await store.listDeliveries(runOf(previous))).toEqual([]);
        previous = reused;
      }
    });

    it("still refuses another enterprise a record written since the run's creation", async () => {
      const { store } = await create();
      const k = key();
      await store.beginAttempt(k, T0, 1_000);
      expect(await store.beginAttempt({ ...k, enterpriseId: 'E2002' }, T0 + 5_000, 1_000)).toEqual({
        taken: false,
        reason: 'BUSY',
      });
      expect(await store.listDeliveries(runOf(k))).toMatchObject([{ status: 'SENDING', attempts: 1 }]);
    });

    it('writes the record on the item conventions, kept RETENTION_DAYS from its first attempt', async () => {
      const { store, rawItem } = await create({ retentionDays: 7 });
      const k = key();
      await store.beginAttempt(k, T0, 1_000);
      await store.recordFailure(k, 'HTTP_500', false, T0 + 10);
      await store.beginAttempt(k, T0 + 86_400_000, 1_000);
      await store.recordDelivered(k, T0 + 86_400_010);
      expect(await rawItem({ pk: `DELIVERY#${k.runId}`, sk: 'DEST#oncall' })).toMatchObject({
        entity: 'delivery',
        schema_version: 1,
        ttl: Math.floor(T0 / 1_000) + 7 * 86_400,
        run_id: k.runId,
        enterprise_id: 'E1001',
        status: 'DELIVERED',
        attempts: 2,
      });
      const { store: byDefault, rawItem: rawByDefault } = await create();
      const other = key();
      await byDefault.beginAttempt(other, T0, 1_000);
      expect(await rawByDefault({ pk: `DELIVERY#${other.runId}`, sk: 'DEST#oncall' })).toMatchObject({
        ttl: Math.floor(T0 / 1_000) + 90 * 86_400,
      });
    });

    it('refuses a record of the wrong shape whole, before anything is written', async () => {
      const { store, rawItem } = await create();
      const k = key({ destinationId: 'x'.repeat(300) });
      await expect(store.beginAttempt(k, T0, 1_000)).rejects.toMatchObject({ code: 'CORRUPT_ITEM' });
      expect(await rawItem({ pk: `DELIVERY#${k.runId}`, sk: `DEST#${k.destinationId}` })).toBeUndefined();
      expect(await store.listDeliveries(runOf(k))).toEqual([]);
    });
  });
}
