/**
 * `POST /diagnoses` on the IAM-only InternalApi: checks and authorizes the request, queues the run and starts its
 * DiagnosisWorkflow execution (named by the runId), and answers within the gateway's limit (202, or 200 with the
 * result when `?wait=` saw the run end).
 */

import { parseWorkflowSettings } from '@diagnosis/core/config';
import { createDynamoAuditStore } from '@diagnosis/core/store';
import { createStartDiagnosisHandler } from './handlers/start-handler.ts';
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

export const handler = createStartDiagnosisHandler(
  { store, workflow },
  { ...createObservability('StartDiagnosis'), policy },
);
