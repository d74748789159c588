/** One slot of an enterprise's concurrency cap, held by one run until it is released or `expiresAt` passes. */
export interface TenantLease {
  enterpriseId: string;
  /** 0 … capacity − 1. */
  slot: number;
  /** Who holds it: the runId. */
  holder: string;
  /** Epoch milliseconds after which anyone may reclaim the slot. */
  expiresAt: number;
}

export interface LeaseRequest {
  enterpriseId: string;
  holder: string;
  /** The enterprise's cap: slots 0 … capacity − 1 exist. */
  capacity: number;
  expiresAt: number;
  /**
   * The holder is new: it has never held a slot (a holder named after this one invocation). The store may then try
   * the holder's first candidate slot before it reads the others, which takes a free slot with one conditional write.
   * NOTE: a holder that may already hold a slot leaves this out: it could be given a second one.
   */
  fresh?: boolean;
}

/**
 * Port: the per-enterprise cap on concurrent runs, kept in the table so that every invocation, whichever workflow or
 * route started it, counts against the same slots. `acquire` takes a free or expired slot, or null when all
 * `capacity` slots are held; it is re-entrant (a holder that already holds a slot gets that slot again, renewed, never
 * a second one), unless the request says the holder is `fresh`. `release` gives a slot back only while its holder
 * still holds it: a slot reclaimed after expiry stays with its new holder. NOTE: a crashed invocation never releases;
 * its slot is free again at `expiresAt`, which the caller sets to the invocation's own deadline plus a margin, so no
 * crash holds a slot longer than a run can last.
 */
export interface TenantLeaseStore {
  acquire(request: LeaseRequest): Promise<TenantLease | null>;
  release(lease: TenantLease): Promise<void>;
  /** The unexpired leases of the enterprise, by slot: for operators and tests. */
  listLeases(enterpriseId: string): Promise<TenantLease[]>;
}

/** The partition of an enterprise's lease slots: one Query reads them all. */
export const leasePartitionKey = (enterpriseId: string) => `TENANT#${enterpriseId}#LEASE`;
export const leaseSortKey = (slot: number) => `SLOT#${String(slot).padStart(3, '0')}`;

/** The most slots an enterprise may have (one Query page of lease items, with room to spare). */
export const MAX_LEASE_CAPACITY = 256;

/**
 * The slots to try, in order, when none is the holder's: the free or expired ones, starting from a slot derived from
 * the holder so that concurrent acquirers mostly try different slots first.
 */
export function leaseCandidates(held: ReadonlyMap<number, TenantLease>, request: LeaseRequest, now: number): number[] {
  const first = firstCandidate(request);
  const candidates: number[] = [];
  for (let offset = 0; offset < request.capacity; offset += 1) {
    const slot = (first + offset) % request.capacity;
    const lease = held.get(slot);
    if (lease === undefined || lease.expiresAt <= now) candidates.push(slot);
  }
  return candidates;
}

/** The first slot the holder tries: derived from the holder, so that concurrent acquirers mostly try different slots. */
export function firstCandidate(request: Pick<LeaseRequest, 'holder' | 'capacity'>): number {
  let hash = 0;
  for (const character of request.holder) hash = (hash * 31 + character.charCodeAt(0)) >>> 0;
  return hash % request.capacity;
}

/** The slot the holder already holds (re-entrant acquire), if any. */
export function slotOfHolder(held: ReadonlyMap<number, TenantLease>, request: LeaseRequest): number | undefined {
  for (const [slot, lease] of held) if (slot < request.capacity && lease.holder === request.holder) return slot;
  return undefined;
}

export function checkLeaseRequest(request: LeaseRequest): void {
  if (!Number.isSafeInteger(request.capacity) || request.capacity < 1 || request.capacity > MAX_LEASE_CAPACITY) {
    throw new RangeError(`a lease capacity is an integer from 1 to ${MAX_LEASE_CAPACITY}`);
  }
}
