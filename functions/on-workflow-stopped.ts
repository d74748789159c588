/** EventBridge: a DiagnosisWorkflow execution that was stopped (ABORTED) cancels its run. */

import { parseStoreSettings } from '@diagnosis/core/config';
import { createDynamoAuditStore } from '@diagnosis/core/store';
import { createWorkflowStoppedHandler } from './handlers/workflow-events.ts';
import { coldStart } from './setup/cold-start.ts';
import { createDynamoClient } from './setup/dependencies.ts';
import { readLinkedEnvironment } from './setup/linked-environment.ts';
import { createObservability } from './setup/observability.ts';

const store = await coldStart(() => {
  const settings = parseStoreSettings(readLinkedEnvironment());
  return createDynamoAuditStore({ client: createDynamoClient(settings), tableName: settings.DIAGNOSIS_TABLE_NAME });
});

export const handler = createWorkflowStoppedHandler(store, createObservability('OnWorkflowStopped'));
