import { parseStoreSettings, type TenantAccessPolicy } from '@diagnosis/core/config';
import { createDynamoIncidentStore, type DynamoAuditStore, type IncidentStore } from '@diagnosis/core/store';
import { coldStart } from './cold-start.ts';
import { createDynamoClient, createTableStore } from './dynamo-client.ts';
import { readLinkedEnvironment } from './linked-environment.ts';

/** The cold start of a read function: the table's store and the tenant access policy. */
export function loadReadStore(): Promise<{ store: DynamoAuditStore; policy: TenantAccessPolicy }> {
  return coldStart(() => {
    const settings = parseStoreSettings(readLinkedEnvironment());
    return { store: createTableStore(settings), policy: settings.TENANT_ACCESS ?? null };
  });
}

/** The cold start of `GET /runs/{runId}`: the read store, and the incident events of triggered runs. */
export function loadRunReader(): Promise<{
  store: DynamoAuditStore;
  incidents: IncidentStore;
  policy: TenantAccessPolicy;
}> {
  return coldStart(() => {
    const settings = parseStoreSettings(readLinkedEnvironment());
    return {
      store: createTableStore(settings),
      incidents: createDynamoIncidentStore({
        client: createDynamoClient(settings),
        tableName: settings.DIAGNOSIS_TABLE_NAME,
      }),
      policy: settings.TENANT_ACCESS ?? null,
    };
  });
}
