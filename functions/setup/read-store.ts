import { DEVELOPMENT_MASKING_SECRET } from '@diagnosis/core';
import { parseStoreSettings, type TenantAccessPolicy } from '@diagnosis/core/config';
import type { DynamoAuditStore } from '@diagnosis/core/store';
import { coldStart } from './cold-start.ts';
import { createTableStore } from './dynamo-client.ts';
import { readLinkedEnvironment } from './linked-environment.ts';

/**
 * The cold start of a read function: the table's store, the tenant access policy and (used by the reveal function
 * only, the one function besides Diagnose that links it) the masking secret.
 */
export function loadReadStore(): Promise<{
  store: DynamoAuditStore;
  policy: TenantAccessPolicy;
  maskingSecret: string;
}> {
  return coldStart(() => {
    const settings = parseStoreSettings(readLinkedEnvironment());
    return {
      store: createTableStore(settings),
      policy: settings.TENANT_ACCESS ?? null,
      maskingSecret: settings.MASKING_SECRET ?? DEVELOPMENT_MASKING_SECRET,
    };
  });
}
