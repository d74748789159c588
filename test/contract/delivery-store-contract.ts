import { describe, expect, it } from 'vitest';
import type { DeliveryKey, DeliveryStore } from '../../functions/delivery/delivery-store.ts';

const T0 = Date.parse('2026-11-30T06:10:00Z');

/** The contract of `DeliveryStore`, run against the in-memory twin and the DynamoDB adapter alike. */
export function describeDeliveryStoreContract(name: string, create: () => Promise<DeliveryStore>) {
  describe(`DeliveryStore contract (${name})`, () => {
    let count = 0;
    const key = (over: Partial<DeliveryKey> = {}): DeliveryKey => {
      count += 1;
      return {
        runId: `run-${name.replace(/\W/g, '')}-${count}`,
        enterpriseId: 'E1001',
        destinationId: 'oncall',
        destinationType: 'slack',
        ...over,
      };
    };

    it('takes an attempt, counts attempts, and refuses a new one once delivered', async () => {
      const store = await create();
      const k = key();
      expect(await store.beginAttempt(k, T0, 1_000)).toEqual({ taken: true, attempt: 1 });
      await store.recordFailure(k, 'HTTP_500', false, T0 + 10);
      expect(await store.beginAttempt(k, T0 + 20, 1_000)).toEqual({ taken: true, attempt: 2 });
      await store.recordDelivered(k, T0 + 30);
      expect(await store.beginAttempt(k, T0 + 40, 1_000)).toEqual({ taken: false, reason: 'DELIVERED' });
      expect(await store.listDeliveries(k.runId)).toEqual([
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
      const store = await create();
      const k = key();
      await store.beginAttempt(k, T0, 1_000);
      expect(await store.beginAttempt(k, T0 + 999, 1_000)).toEqual({ taken: false, reason: 'BUSY' });
      expect(await store.beginAttempt(k, T0 + 1_001, 1_000)).toEqual({ taken: true, attempt: 2 });
    });

    it('marks the last failure DEAD_LETTERED with its code and never overwrites a delivery', async () => {
      const store = await create();
      const k = key({ destinationId: 'itsm', destinationType: 'webhook' });
      await store.beginAttempt(k, T0, 1_000);
      await store.recordFailure(k, 'TIMEOUT', true, T0 + 1);
      expect(await store.listDeliveries(k.runId)).toMatchObject([
        { status: 'DEAD_LETTERED', lastError: 'TIMEOUT', attempts: 1 },
      ]);
      const delivered = key();
      await store.beginAttempt(delivered, T0, 1_000);
      await store.recordDelivered(delivered, T0 + 1);
      await store.recordFailure(delivered, 'HTTP_500', true, T0 + 2);
      expect(await store.listDeliveries(delivered.runId)).toMatchObject([{ status: 'DELIVERED', lastError: null }]);
    });

    it("keeps a run's records to its enterprise and lists only that run's", async () => {
      const store = await create();
      const k = key();
      await store.beginAttempt(k, T0, 1_000);
      await store.recordDelivered(k, T0);
      expect(await store.beginAttempt({ ...k, enterpriseId: 'E2002' }, T0 + 5_000, 1_000)).toMatchObject({
        taken: false,
      });
      await expect(store.recordDelivered({ ...k, enterpriseId: 'E2002' }, T0)).rejects.toThrow();
      expect(await store.listDeliveries(`${k.runId}0`)).toEqual([]);
      expect(await store.listDeliveries('run-unknown')).toEqual([]);
    });
  });
}
