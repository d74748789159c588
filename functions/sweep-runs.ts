/**
 * The SweepRuns Lambda, every 5 minutes (an EventBridge schedule): closes every run that no invocation can still be
 * working on as FAILED `RUN_ABANDONED` — a crashed Diagnose, a lost workflow event, a QUEUED run whose workflow gave
 * up silently — so no run is ever left RUNNING or QUEUED (see `handlers/sweep-handler.ts`).
 */

import { parseWorkflowSettings } from '@diagnosis/core/config';
import { createDynamoClient, createDynamoTenantLeaseStore } from '@diagnosis/core/store';
import { createSweepHandler } from './handlers/sweep-handler.ts';
import { coldStart } from './setup/cold-start.ts';
import { readLinkedEnvironment } from './setup/linked-environment.ts';
import { createObservability } from './setup/observability.ts';
import { createTableStore } from './setup/table-store.ts';
import { queuedStartTimeoutMs } from './workflows/diagnosis-workflows.ts';

const deps = await coldStart(() => {
  const settings = parseWorkflowSettings(readLinkedEnvironment());
  return {
    store: createTableStore(settings),
    leases: createDynamoTenantLeaseStore({
      client: createDynamoClient(settings, process.env),
      tableName: settings.DIAGNOSIS_TABLE_NAME,
    }),
    rule: { flushReserveMs: settings.FLUSH_RESERVE_MS, queuedTimeoutMs: queuedStartTimeoutMs() },
  };
});

export const handler = createSweepHandler(deps, createObservability('SweepRuns'));
