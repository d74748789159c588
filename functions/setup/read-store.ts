import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { parseStoreSettings, type TenantAccessPolicy } from '@diagnosis/core/config';
import { createDynamoAuditStore, type DynamoAuditStore } from '@diagnosis/core/store';
import { coldStart } from './cold-start.ts';
import { createDynamoClient } from './dynamo-client.ts';
import { readLinkedEnvironment } from './linked-environment.ts';

/** The cold start of a read function: the table's store and the tenant access policy (and the table's client). */
export function loadReadStore(): Promise<{
  store: DynamoAuditStore;
  policy: TenantAccessPolicy;
  table: { client: DynamoDBClient; tableName: string };
}> {
  return coldStart(() => {
    const settings = parseStoreSettings(readLinkedEnvironment());
    const table = { client: createDynamoClient(settings), tableName: settings.DIAGNOSIS_TABLE_NAME };
    return { store: createDynamoAuditStore(table), policy: settings.TENANT_ACCESS ?? null, table };
  });
}
