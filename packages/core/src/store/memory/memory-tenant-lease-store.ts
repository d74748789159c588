import {
  checkLeaseRequest,
  type LeaseRequest,
  leaseCandidates,
  slotOfHolder,
  type TenantLease,
  type TenantLeaseStore,
} from '../tenant-lease-store.ts';

export interface MemoryTenantLeaseStoreOptions {
  now?: () => number;
}

export type MemoryTenantLeaseStore = TenantLeaseStore & {
  /** Every lease item held, expired or not, keyed `<enterpriseId>|<slot>`. */
  readonly leases: ReadonlyMap<string, TenantLease>;
};

/**
 * The tenant lease store in memory, with the behaviour of `createDynamoTenantLeaseStore` (the shared contract suite
 * runs against both): for local runs without a table and for users' own tests.
 */
export function createMemoryTenantLeaseStore(options: MemoryTenantLeaseStoreOptions = {}): MemoryTenantLeaseStore {
  const now = options.now ?? Date.now;
  const leases = new Map<string, TenantLease>();
  const keyOf = (enterpriseId: string, slot: number) => `${enterpriseId}|${slot}`;
  const heldBy = (enterpriseId: string) =>
    new Map(
      [...leases.values()].filter((lease) => lease.enterpriseId === enterpriseId).map((lease) => [lease.slot, lease]),
    );

  return {
    leases,
    async acquire(request: LeaseRequest) {
      checkLeaseRequest(request);
      await Promise.resolve();
      const held = heldBy(request.enterpriseId);
      const slot = slotOfHolder(held, request) ?? leaseCandidates(held, request, now())[0];
      if (slot === undefined) return null;
      const lease = { enterpriseId: request.enterpriseId, slot, holder: request.holder, expiresAt: request.expiresAt };
      leases.set(keyOf(request.enterpriseId, slot), lease);
      return { ...lease };
    },
    async release(lease: TenantLease) {
      await Promise.resolve();
      const key = keyOf(lease.enterpriseId, lease.slot);
      if (leases.get(key)?.holder === lease.holder) leases.delete(key);
    },
    async listLeases(enterpriseId: string) {
      const at = now();
      return [...heldBy(enterpriseId).values()]
        .filter((lease) => lease.expiresAt > at)
        .sort((a, b) => a.slot - b.slot)
        .map((lease) => ({ ...lease }));
    },
  };
}
