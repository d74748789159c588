/**
 * The SweepRuns Lambda, every 5 minutes (an EventBridge schedule): closes every run that no invocation can still be
 * working on as FAILED `RUN_ABANDONED` — a crashed Diagnose, a lost workflow event, a QUEUED run whose workflow gave
 * up silently — so no run is ever left RUNNING or QUEUED (see `diagnose/sweep-handler.ts`).
 */

import { parseWorkflowSettings } from '@diagnosis/core/config';
import { createDynamoClient, createDynamoTenantLeaseStore } from '@diagnosis/core/store';
import { queuedStartTimeoutMs } from './diagnose/diagnosis-workflows.ts';
import { createSweepHandler } from './diagnose/sweep-handler.ts';
import { createTableStore } from './diagnose/table-store.ts';
import { coldStart } from './lambda/cold-start.ts';
import { readLinkedEnvironment } from './lambda/linked-environment.ts';
import { createObservability } from './lambda/observability.ts';

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
