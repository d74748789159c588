import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { createDynamoTenantLeaseStore, firstCandidate } from '@diagnosis/core/store';
import { describe, expect, it } from 'vitest';
import { describeTenantLeaseContract } from '../../contract/tenant-lease-contract.ts';
import { createTestTable, localDynamoClient, recordCommands } from '../../support/dynamodb.ts';

describeTenantLeaseContract('DynamoDB Local', async ({ now }) => {
  const client = localDynamoClient();
  const table = await createTestTable(client);
  return {
    store: createDynamoTenantLeaseStore({ client, tableName: table.tableName, now }),
    cleanup: async () => {
      await table.drop();
      client.destroy();
    },
  };
});

describe('createDynamoTenantLeaseStore', () => {
  it('takes a fresh holder’s free first slot with one conditional write, and reads the slots only when it is held', async () => {
    const client = localDynamoClient();
    const sent = recordCommands(client);
    const table = await createTestTable(client);
    try {
      const store = createDynamoTenantLeaseStore({ client, tableName: table.tableName, now: () => 1_000 });
      const lease = (holder: string, fresh?: boolean) => ({
        enterpriseId: 'E1001',
        holder,
        capacity: 2,
        expiresAt: 61_000,
        ...(fresh === undefined ? {} : { fresh }),
      });
      sent.length = 0;
      const first = await store.acquire(lease('run-a@1', true));
      expect(sent).toEqual(['PutItemCommand']);
      // A holder with the same first slot: refused there, it reads the slots and takes the other.
      const holders = Array.from({ length: 20 }, (_, index) => `run-${index}@2`);
      const twin = holders.find((holder) => firstCandidate({ holder, capacity: 2 }) === first?.slot);
      if (twin === undefined) throw new Error('no holder shares the first slot');
      sent.length = 0;
      expect(await store.acquire(lease(twin, true))).toMatchObject({ slot: 1 - (first?.slot ?? 0) });
      expect(sent).toEqual(['PutItemCommand', 'QueryCommand', 'PutItemCommand']);
      // Without `fresh`, the slots are read first (the re-entrant path).
      sent.length = 0;
      expect(await store.acquire(lease('run-a@1'))).toEqual(first);
      expect(sent).toEqual(['QueryCommand', 'PutItemCommand']);
    } finally {
      await table.drop();
      client.destroy();
    }
  });

  it('writes one item per slot in the enterprise’s lease partition, with a TTL a day past its expiry', async () => {
    const client = localDynamoClient();
    const table = await createTestTable(client);
    try {
      const store = createDynamoTenantLeaseStore({ client, tableName: table.tableName, now: () => 1_000 });
      await store.acquire({ enterpriseId: 'E1001', holder: 'run-a', capacity: 1, expiresAt: 61_000 });
      const { Item } = await DynamoDBDocumentClient.from(client).send(
        new GetCommand({ TableName: table.tableName, Key: { pk: 'TENANT#E1001#LEASE', sk: 'SLOT#000' } }),
      );
      expect(Item).toEqual({
        pk: 'TENANT#E1001#LEASE',
        sk: 'SLOT#000',
        entity: 'tenant_lease',
        enterprise_id: 'E1001',
        slot: 0,
        holder: 'run-a',
        expires_at: 61_000,
        ttl: 61 + 86_400,
      });
    } finally {
      await table.drop();
      client.destroy();
    }
  });
});
