/**
 * The run store of the functions that only read, start, cancel or close runs: a module of its own, so that their
 * bundles do not import the model provider and the evidence adapters of dependencies.ts.
 */
import type { StoreSettings } from '@diagnosis/core/config';
import { createDynamoClient, createDynamoRunStore, type RunStore } from '@diagnosis/core/store';

/**
 * The table's run store on a client of its own: the cold start of the functions that only read, start or cancel runs.
 * Its bound of open runs per enterprise is TENANT_MAX_OPEN_RUNS where the function has it, else the store's default.
 */
export function createTableStore(settings: StoreSettings & { TENANT_MAX_OPEN_RUNS?: number }): RunStore {
  return createDynamoRunStore({
    client: createDynamoClient(settings, process.env),
    tableName: settings.DIAGNOSIS_TABLE_NAME,
    ...(settings.TENANT_MAX_OPEN_RUNS === undefined ? {} : { maxOpenRuns: settings.TENANT_MAX_OPEN_RUNS }),
  });
}
