import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { parseStoreSettings, type TenantAccessPolicy } from '@diagnosis/core/config';
import { createDynamoClient, createDynamoRunStore, type RunStore } from '@diagnosis/core/store';
import { coldStart } from '../lambda/cold-start.ts';
import { readLinkedEnvironment } from '../lambda/linked-environment.ts';
import { resolveMaskingSecret } from '../lambda/masking-secret.ts';

/**
 * The cold start of a read function: the table's store, the tenant access policy, the table's client and (used by the
 * reveal function only, the one function besides Diagnose that links it) the masking secret: null on a deployed table
 * without `MaskingKey` (the reveal route then answers 503 `MASKING_UNAVAILABLE`, never opening a map with the public
 * development key).
 */
export function loadReadStore(): Promise<{
  store: RunStore;
  policy: TenantAccessPolicy;
  table: { client: DynamoDBClient; tableName: string };
  maskingSecret: string | null;
}> {
  return coldStart(() => {
    const settings = parseStoreSettings(readLinkedEnvironment());
    const table = { client: createDynamoClient(settings, process.env), tableName: settings.DIAGNOSIS_TABLE_NAME };
    return {
      store: createDynamoRunStore(table),
      policy: settings.TENANT_ACCESS ?? null,
      table,
      maskingSecret: resolveMaskingSecret(settings),
    };
  });
}
