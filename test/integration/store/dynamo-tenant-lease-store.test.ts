import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { createDynamoTenantLeaseStore } from '@diagnosis/core/store';
import { describe, expect, it } from 'vitest';
import { describeTenantLeaseContract } from '../../contract/tenant-lease-contract.ts';
import { createTestTable, localDynamoClient } from '../../support/dynamodb.ts';

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
