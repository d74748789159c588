import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DiagnosisSettings } from '@diagnosis/core/config';
import { createDynamoClient, createDynamoTenantLeaseStore } from '@diagnosis/core/store';
import type { TenantLeaseOptions } from './tenant-lease.ts';

/** The per-enterprise cap of the Diagnose Lambda: lease slots in the diagnosis table, built once per cold start. */
export function buildTenantLeases(
  settings: DiagnosisSettings,
  client: DynamoDBClient = createDynamoClient(settings, process.env),
): TenantLeaseOptions {
  return {
    store: createDynamoTenantLeaseStore({ client, tableName: settings.DIAGNOSIS_TABLE_NAME }),
    maxConcurrentRuns: settings.TENANT_MAX_CONCURRENT_RUNS,
  };
}
