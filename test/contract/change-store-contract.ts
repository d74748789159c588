import { type ChangeRecord, changeIdOf, RunStoreError } from '@diagnosis/core';
import type { ChangeStore } from '@diagnosis/core/store';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';

export interface ChangeStoreUnderTest {
  changes: ChangeStore;
  /** The raw items of an enterprise's partition, as persisted. */
  rawItems(enterpriseId: string): Promise<Record<string, unknown>[]>;
  cleanup(): Promise<void>;
}

const AT = Date.parse('2026-11-30T06:00:00.000Z');
const MINUTE = 60_000;
let counter = 0;

function change(overrides: Partial<ChangeRecord> = {}): ChangeRecord {
  counter += 1;
  return {
    enterpriseId: 'E1001',
    source: 'webhook',
    origin: 'argocd-e1001',
    eventId: `event-${counter}`,
    at: new Date(AT + counter * 1_000).toISOString(),
    service: 'order-service',
    environment: 'production',
    kind: 'deploy',
    ref: `v2.14.${counter}`,
    actor: 'alice',
    summary: 'order-service 同步到 v2.14',
    url: 'https://argocd.example.com/applications/order-service',
    receivedAt: new Date(AT + counter * 1_000 + 500).toISOString(),
    ...overrides,
  };
}

const everything = { fromMs: AT - 60 * MINUTE, toMs: AT + 600 * MINUTE, limit: 50 };

/** The ChangeStore port's contract, run against the DynamoDB adapter and the in-memory twin. */
export function describeChangeStoreContract(label: string, open: () => Promise<ChangeStoreUnderTest>) {
  describe(`ChangeStore contract (${label})`, () => {
    let opened: ChangeStoreUnderTest | undefined;
    const start = async () => {
      opened = await open();
      return opened;
    };
    afterEach(async () => {
      await opened?.cleanup();
      opened = undefined;
    });

    it('stores a change once: a redelivery of its event is DUPLICATE and writes nothing, whatever its time says', async () => {
      const { changes, rawItems } = await start();
      const first = change();
      expect(await changes.record(first)).toBe('STORED');
      const before = await rawItems('E1001');
      expect(before).toHaveLength(2);
      expect(await changes.record(first)).toBe('DUPLICATE');
      expect(await changes.record({ ...first, at: new Date(AT + 99 * MINUTE).toISOString(), ref: 'v9' })).toBe(
        'DUPLICATE',
      );
      expect(await rawItems('E1001')).toEqual(before);
      const listed = await changes.list('E1001', everything);
      expect(listed.matched).toBe(1);
      expect(listed.changes).toEqual([{ ...first, id: changeIdOf('webhook', 'argocd-e1001', first.eventId) }]);
    });

    it('keeps each change its retention after it landed (the items’ ttl), the claim as long', async () => {
      const { changes, rawItems } = await start();
      const landed = change();
      await changes.record(landed);
      const items = await rawItems('E1001');
      const expected = Math.floor(Date.parse(landed.at) / 1_000) + 30 * 86_400;
      expect(items.map((item) => item.ttl)).toEqual([expected, expected]);
    });

    it('lists the range’s changes newest first, both ends included, nothing outside it', async () => {
      const { changes } = await start();
      const times = [-10, 0, 5, 10, 11].map((minutes) => new Date(AT + minutes * MINUTE).toISOString());
      for (const at of times) await changes.record(change({ at }));
      const listed = await changes.list('E1001', { fromMs: AT, toMs: AT + 10 * MINUTE, limit: 50 });
      expect(listed.changes.map((entry) => entry.at)).toEqual([times[3], times[2], times[1]]);
      expect(listed.matched).toBe(3);
      const newest = await changes.list('E1001', { fromMs: AT, toMs: AT + 10 * MINUTE, limit: 1 });
      expect(newest).toMatchObject({ matched: 3, changes: [{ at: times[3] }] });
    });

    it('filters exactly by service and kind, and by a text of the ref, actor or summary (any case)', async () => {
      const { changes } = await start();
      await changes.record(change({ service: 'order-service', kind: 'deploy', ref: 'v2.14.0' }));
      await changes.record(change({ service: 'payment-gateway', kind: 'config', summary: 'pool.max 50 → 5' }));
      await changes.record(change({ service: 'order-service', kind: 'flag', ref: 'new-checkout', actor: 'Bob' }));
      await changes.record(change({ service: 'order-service-canary', kind: 'deploy' }));
      const of = async (filter: Record<string, string>) =>
        (await changes.list('E1001', { ...everything, ...filter })).changes.map((entry) => [entry.service, entry.kind]);
      expect(await of({ service: 'order-service' })).toEqual([
        ['order-service', 'flag'],
        ['order-service', 'deploy'],
      ]);
      expect(await of({ kind: 'config' })).toEqual([['payment-gateway', 'config']]);
      expect(await of({ service: 'order-service', kind: 'deploy' })).toEqual([['order-service', 'deploy']]);
      expect(await of({ text: 'POOL.MAX' })).toEqual([['payment-gateway', 'config']]);
      expect(await of({ text: 'bob' })).toEqual([['order-service', 'flag']]);
    });

    it('refuses a change whose texts exceed their caps or whose enterprise is malformed, writing nothing', async () => {
      const { changes, rawItems } = await start();
      await expect(changes.record(change({ summary: 'x'.repeat(1_001) }))).rejects.toBeInstanceOf(RunStoreError);
      await expect(changes.record(change({ enterpriseId: 'e1001' }))).rejects.toBeInstanceOf(RunStoreError);
      await expect(changes.record(change({ at: '2026-11-30T14:00:00+08:00' }))).rejects.toBeInstanceOf(RunStoreError);
      expect(await rawItems('E1001')).toEqual([]);
    });

    it('never lists one enterprise’s change for another (fast-check, fixed seed)', async () => {
      const { changes } = await start();
      await fc.assert(
        fc.asyncProperty(
          fc.array(
            fc.record({
              enterprise: fc.constantFrom('E1001', 'E2002', 'E3003'),
              service: fc.constantFrom('order-service', 'payment-gateway'),
            }),
            { minLength: 1, maxLength: 8 },
          ),
          async (writes) => {
            for (const { enterprise, service } of writes) {
              await changes.record(change({ enterpriseId: enterprise, service, summary: `canary-${enterprise}` }));
            }
            for (const reader of ['E1001', 'E2002', 'E3003', 'E4004']) {
              const listed = await changes.list(reader, everything);
              for (const entry of listed.changes) {
                expect(entry.enterpriseId).toBe(reader);
                expect(entry.summary).toBe(`canary-${reader}`);
              }
            }
          },
        ),
        { seed: 46, numRuns: 12 },
      );
    });
  });
}
