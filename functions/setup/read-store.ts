import { parseStoreSettings, type TenantAccessPolicy } from '@diagnosis/core/config';
import type { DynamoAuditStore } from '@diagnosis/core/store';
import { coldStart } from './cold-start.ts';
import { createTableStore } from './dynamo-client.ts';
import { readLinkedEnvironment } from './linked-environment.ts';

/** The cold start of a read function: the table's store and the tenant access policy. */
export function loadReadStore(): Promise<{ store: DynamoAuditStore; policy: TenantAccessPolicy }> {
  return coldStart(() => {
    const settings = parseStoreSettings(readLinkedEnvironment());
    return { store: createTableStore(settings), policy: settings.TENANT_ACCESS ?? null };
  });
}
