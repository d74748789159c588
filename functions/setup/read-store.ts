import { parseStoreSettings, type TenantAccessPolicy } from '@diagnosis/core/config';
import { createDynamoAuditStore, type DynamoAuditStore } from '@diagnosis/core/store';
import { coldStart } from './cold-start.ts';
import { createDynamoClient } from './dependencies.ts';
import { readLinkedEnvironment } from './linked-environment.ts';

/** The cold start of a read function: the table's store and the tenant access policy. */
export function loadReadStore(): Promise<{ store: DynamoAuditStore; policy: TenantAccessPolicy }> {
  return coldStart(() => {
    const settings = parseStoreSettings(readLinkedEnvironment());
    const store = createDynamoAuditStore({
      client: createDynamoClient(settings),
      tableName: settings.DIAGNOSIS_TABLE_NAME,
    });
    return { store, policy: settings.TENANT_ACCESS ?? null };
  });
}
