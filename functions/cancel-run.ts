/**
 * `POST /runs/{runId}/cancel` on the IAM-only InternalApi: a QUEUED run ends CANCELLED at once; a RUNNING one is
 * asked to stop (its invocation sees the flag within a few seconds) and its workflow execution is stopped.
 */

import { parseWorkflowSettings } from '@diagnosis/core/config';
import { createDynamoAuditStore } from '@diagnosis/core/store';
import { createCancelRunHandler } from './handlers/cancel-handler.ts';
import { coldStart } from './setup/cold-start.ts';
import { createDynamoClient } from './setup/dependencies.ts';
import { readLinkedEnvironment } from './setup/linked-environment.ts';
import { createObservability } from './setup/observability.ts';
import { createWorkflow } from './setup/workflow-setup.ts';

const { store, workflow, policy } = await coldStart(() => {
  const settings = parseWorkflowSettings(readLinkedEnvironment());
  const store = createDynamoAuditStore({
    client: createDynamoClient(settings),
    tableName: settings.DIAGNOSIS_TABLE_NAME,
  });
  return { store, workflow: createWorkflow(settings), policy: settings.TENANT_ACCESS ?? null };
});

export const handler = createCancelRunHandler({ store, workflow }, { ...createObservability('CancelRun'), policy });
