/**
 * The DynamoDB client and table store of the functions that only read, start, cancel or close runs: a module of its
 * own, so that their bundles do not import the model provider and the evidence adapters of dependencies.ts.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { StoreSettings } from '@diagnosis/core/config';
import { createDynamoAuditStore, type DynamoAuditStore } from '@diagnosis/core/store';

/**
 * A DynamoDB client for the configured table. Placeholder credentials only for a DynamoDB Local on this machine; any
 * other endpoint (a VPC endpoint, say) uses the function's own credentials.
 */
export function createDynamoClient(settings: StoreSettings): DynamoDBClient {
  const endpoint = settings.DYNAMODB_ENDPOINT;
  if (endpoint === undefined) return new DynamoDBClient({ maxAttempts: 3 });
  const local = /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?\/?$/.test(endpoint);
  return new DynamoDBClient({
    endpoint,
    maxAttempts: 3,
    ...(local
      ? { region: process.env.AWS_REGION ?? 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
      : {}),
  });
}

/**
 * The table's store on a client of its own: the cold start of the functions that only read, start or cancel runs.
 * Its bound of open runs per enterprise is TENANT_MAX_OPEN_RUNS where the function has it, else the store's default.
 */
export function createTableStore(settings: StoreSettings & { TENANT_MAX_OPEN_RUNS?: number }): DynamoAuditStore {
  return createDynamoAuditStore({
    client: createDynamoClient(settings),
    tableName: settings.DIAGNOSIS_TABLE_NAME,
    ...(settings.TENANT_MAX_OPEN_RUNS === undefined ? {} : { maxOpenRuns: settings.TENANT_MAX_OPEN_RUNS }),
  });
}
