import { firstCandidate, type TenantLease, type TenantLeaseStore } from '@diagnosis/core/store';
import { afterEach, describe, expect, it } from 'vitest';

export interface LeaseStoreUnderTest {
  store: TenantLeaseStore;
  cleanup(): Promise<void>;
}

export type LeaseStoreFactory = (options: { now: () => number }) => Promise<LeaseStoreUnderTest>;

const T0 = Date.parse('2026-11-30T14:05:00Z');
let counter = 0;
const newEnterprise = () => `E${Date.now().toString(36).toUpperCase()}${(counter++).toString(36).toUpperCase()}`;

/** One behaviour for every TenantLeaseStore: the DynamoDB one and the in-memory twin run the same suite. */
export function describeTenantLeaseContract(label: string, factory: LeaseStoreFactory): void {
  describe(`TenantLeaseStore contract: ${label}`, () => {
    let clock = T0;
    let current: LeaseStoreUnderTest | undefined;
    const make = async () => {
      clock = T0;
      current = await factory({ now: () => clock });
      return current.store;
    };
    afterEach(async () => {
      await current?.cleanup();
      current = undefined;
    });
    // NOTE: every slot-granting behaviour holds for holders that say they are new (`fresh`, the Diagnose
    // middleware's) as for the others: a store may take a fresh holder's first slot before it reads the others.
    for (const fresh of [false, true]) {
      const kind = fresh ? ' (fresh holders)' : '';
      const request = (enterpriseId: string, holder: string, capacity = 3, expiresAt = T0 + 60_000) => ({
        enterpriseId,
        holder,
        capacity,
        expiresAt,
        ...(fresh ? { fresh } : {}),
      });
      describeSlotGranting(
        kind,
        make,
        () => clock,
        (at) => {
          clock = at;
        },
        request,
      );
    }
    const request = (enterpriseId: string, holder: string, capacity = 3, expiresAt = T0 + 60_000) => ({
      enterpriseId,
      holder,
      capacity,
      expiresAt,
    });

    it('gives a fresh holder whose first slot is held another free slot, never the held one', async () => {
      const store = await make();
      const enterprise = newEnterprise();
      // Two holders with the same first slot out of 3: the second finds it held.
      const holders = Array.from({ length: 20 }, (_, index) => `run-${index}`);
      const [a, b] = holders.filter(
        (holder) => firstCandidate({ holder, capacity: 3 }) === firstCandidate({ holder: 'run-0', capacity: 3 }),
      );
      if (a === undefined || b === undefined) throw new Error('no two holders share a first slot');
      const first = await store.acquire({ ...request(enterprise, a), fresh: true });
      const second = await store.acquire({ ...request(enterprise, b), fresh: true });
      expect(first?.slot).toBe(firstCandidate({ holder: a, capacity: 3 }));
      expect(second).not.toBeNull();
      expect(second?.slot).not.toBe(first?.slot);
      expect((await store.listLeases(enterprise)).map((lease) => lease.holder).sort()).toEqual([a, b].sort());
    });

    it('gives a holder its own slot again, renewed, instead of a second one', async () => {
      const store = await make();
      const enterprise = newEnterprise();
      const first = await store.acquire(request(enterprise, 'run-a'));
      const again = await store.acquire(request(enterprise, 'run-a', 3, T0 + 120_000));
      expect(again).toEqual({ ...first, expiresAt: T0 + 120_000 });
      expect(await store.listLeases(enterprise)).toEqual([again]);
    });

    it('ignores a release of a lease that is already gone', async () => {
      const store = await make();
      const enterprise = newEnterprise();
      await expect(
        store.release({ enterpriseId: enterprise, slot: 0, holder: 'run-a', expiresAt: T0 + 1 }),
      ).resolves.toBeUndefined();
    });

    it('refuses a capacity that is not a positive integer', async () => {
      const store = await make();
      await expect(store.acquire(request(newEnterprise(), 'run-a', 0))).rejects.toThrow(RangeError);
      await expect(store.acquire(request(newEnterprise(), 'run-a', 1.5))).rejects.toThrow(RangeError);
    });
  });
}

type LeaseRequestOf = (
  enterpriseId: string,
  holder: string,
  capacity?: number,
  expiresAt?: number,
) => { enterpriseId: string; holder: string; capacity: number; expiresAt: number; fresh?: boolean };

/** What every store grants and refuses, for one kind of holder (`kind` names it in the test titles). */
function describeSlotGranting(
  kind: string,
  make: () => Promise<TenantLeaseStore>,
  now: () => number,
  setClock: (at: number) => void,
  request: LeaseRequestOf,
): void {
  it(`grants one distinct slot per holder up to the capacity, then refuses${kind}`, async () => {
    const store = await make();
    const enterprise = newEnterprise();
    const leases: (TenantLease | null)[] = [];
    for (const holder of ['run-a', 'run-b', 'run-c', 'run-d'])
      leases.push(await store.acquire(request(enterprise, holder)));
    expect(
      leases
        .slice(0, 3)
        .map((lease) => lease?.slot)
        .sort(),
    ).toEqual([0, 1, 2]);
    expect(leases[3]).toBeNull();
    expect((await store.listLeases(enterprise)).map((lease) => lease.holder).sort()).toEqual([
      'run-a',
      'run-b',
      'run-c',
    ]);
  });

  it(`grants exactly the capacity when many holders race for the slots${kind}`, async () => {
    const store = await make();
    const enterprise = newEnterprise();
    const leases = await Promise.all(
      Array.from({ length: 10 }, (_, index) => store.acquire(request(enterprise, `run-${index}`))),
    );
    const granted = leases.filter((lease) => lease !== null);
    expect(granted).toHaveLength(3);
    expect(new Set(granted.map((lease) => lease.slot)).size).toBe(3);
    expect(await store.listLeases(enterprise)).toHaveLength(3);
  });

  it(`counts each enterprise against its own slots${kind}`, async () => {
    const store = await make();
    const [first, second] = [newEnterprise(), newEnterprise()];
    expect(await store.acquire(request(first, 'run-a', 1))).not.toBeNull();
    expect(await store.acquire(request(first, 'run-b', 1))).toBeNull();
    expect(await store.acquire(request(second, 'run-b', 1))).not.toBeNull();
  });

  it(`frees a slot for the next holder when its lease is released${kind}`, async () => {
    const store = await make();
    const enterprise = newEnterprise();
    const lease = await store.acquire(request(enterprise, 'run-a', 1));
    expect(await store.acquire(request(enterprise, 'run-b', 1))).toBeNull();
    if (lease === null) throw new Error('no lease');
    await store.release(lease);
    expect(await store.listLeases(enterprise)).toEqual([]);
    expect(await store.acquire(request(enterprise, 'run-b', 1))).toMatchObject({ holder: 'run-b', slot: 0 });
  });

  it(`lets another holder reclaim an expired lease, and keeps it when the crashed holder releases late${kind}`, async () => {
    const store = await make();
    const enterprise = newEnterprise();
    const crashed = await store.acquire(request(enterprise, 'run-crashed', 1, T0 + 60_000));
    setClock(T0 + 59_999);
    expect(await store.acquire(request(enterprise, 'run-b', 1, now() + 60_000))).toBeNull();
    setClock(T0 + 60_000);
    expect(await store.listLeases(enterprise)).toEqual([]);
    const reclaimed = await store.acquire(request(enterprise, 'run-b', 1, now() + 60_000));
    expect(reclaimed).toMatchObject({ holder: 'run-b', slot: 0 });
    if (crashed === null) throw new Error('no lease');
    await store.release(crashed);
    expect((await store.listLeases(enterprise)).map((lease) => lease.holder)).toEqual(['run-b']);
  });
}
