import { ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import {
  checkLeaseRequest,
  firstCandidate,
  type LeaseRequest,
  leaseCandidates,
  leasePartitionKey,
  leaseSortKey,
  slotOfHolder,
  type TenantLease,
  type TenantLeaseStore,
} from '../tenant-lease-store.ts';

export interface DynamoTenantLeaseStoreOptions {
  /** A DynamoDB client built once per cold start. */
  client: DynamoDBClient;
  tableName: string;
  now?: () => number;
}

/** How long after its expiry DynamoDB's TTL may delete a lease item (housekeeping only: expiry is checked on read). */
const LEASE_TTL_GRACE_SECONDS = 24 * 60 * 60;

/**
 * The tenant lease store on the diagnosis table: one item per slot, `pk = TENANT#<enterpriseId>#LEASE`,
 * `sk = SLOT#<nnn>`, with `holder` and `expires_at` (epoch ms). `acquire` for a fresh holder first tries its first
 * candidate slot with a conditional put (free or expired); otherwise, or when that slot is held, it reads the
 * enterprise's slots with one consistent Query, then takes a slot with a conditional put: the holder's own slot
 * (`holder = :holder`), else a free or expired one (`attribute_not_exists(pk) OR expires_at <= :now`). Two invocations
 * racing for one slot cannot both win the condition; the loser tries the next candidate. `release` is a delete
 * conditional on the holder.
 */
export function createDynamoTenantLeaseStore(options: DynamoTenantLeaseStoreOptions): TenantLeaseStore {
  const documents = DynamoDBDocumentClient.from(options.client, {
    marshallOptions: { removeUndefinedValues: true },
  });
  const { tableName } = options;
  const now = options.now ?? Date.now;

  async function heldSlots(enterpriseId: string): Promise<Map<number, TenantLease>> {
    const held = new Map<number, TenantLease>();
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await documents.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': leasePartitionKey(enterpriseId) },
          ConsistentRead: true,
          ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey }),
        }),
      );
      for (const item of page.Items ?? []) {
        const lease = leaseOf(item);
        if (lease !== null) held.set(lease.slot, lease);
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey !== undefined);
    return held;
  }

  async function put(request: LeaseRequest, slot: number, condition: 'own' | 'free'): Promise<TenantLease | null> {
    const lease = { enterpriseId: request.enterpriseId, slot, holder: request.holder, expiresAt: request.expiresAt };
    try {
      await documents.send(
        new PutCommand({
          TableName: tableName,
          Item: {
            pk: leasePartitionKey(request.enterpriseId),
            sk: leaseSortKey(slot),
            entity: 'tenant_lease',
            enterprise_id: request.enterpriseId,
            slot,
            holder: request.holder,
            expires_at: request.expiresAt,
            ttl: Math.ceil(request.expiresAt / 1000) + LEASE_TTL_GRACE_SECONDS,
          },
          ...(condition === 'own'
            ? { ConditionExpression: 'holder = :holder', ExpressionAttributeValues: { ':holder': request.holder } }
            : {
                ConditionExpression: 'attribute_not_exists(pk) OR expires_at <= :now',
                ExpressionAttributeValues: { ':now': now() },
              }),
        }),
      );
      return lease;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return null;
      throw error;
    }
  }

  return {
    async acquire(request) {
      checkLeaseRequest(request);
      if (request.fresh === true) {
        // NOTE: a new holder holds no slot, so its first candidate, when free, is the slot the read below would give
        // it: one conditional write instead of a Query and a write. Refused (held): the read decides, as for anyone.
        const taken = await put(request, firstCandidate(request), 'free');
        if (taken !== null) return taken;
      }
      const held = await heldSlots(request.enterpriseId);
      const own = slotOfHolder(held, request);
      if (own !== undefined) {
        const renewed = await put(request, own, 'own');
        if (renewed !== null) return renewed;
      }
      for (const slot of leaseCandidates(held, request, now())) {
        const taken = await put(request, slot, 'free');
        if (taken !== null) return taken;
      }
      return null;
    },

    async release(lease) {
      try {
        await documents.send(
          new DeleteCommand({
            TableName: tableName,
            Key: { pk: leasePartitionKey(lease.enterpriseId), sk: leaseSortKey(lease.slot) },
            ConditionExpression: 'holder = :holder',
            ExpressionAttributeValues: { ':holder': lease.holder },
          }),
        );
      } catch (error) {
        // NOTE: the lease expired and was reclaimed (or is gone): it is not ours to delete.
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    },

    async listLeases(enterpriseId) {
      const at = now();
      return [...(await heldSlots(enterpriseId)).values()]
        .filter((lease) => lease.expiresAt > at)
        .sort((a, b) => a.slot - b.slot);
    },
  };
}

function leaseOf(item: Record<string, unknown>): TenantLease | null {
  const { enterprise_id, slot, holder, expires_at } = item;
  if (typeof enterprise_id !== 'string' || typeof slot !== 'number' || typeof holder !== 'string') return null;
  if (typeof expires_at !== 'number') return null;
  return { enterpriseId: enterprise_id, slot, holder, expiresAt: expires_at };
}
