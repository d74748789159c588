/**
 * EventBridge: a DiagnosisWorkflow execution (or a DiagnosisBatch child execution) that was stopped (ABORTED) cancels
 * its own run; one that FAILED or TIMED_OUT closes its own run if it is still QUEUED, or if no invocation can still be
 * running it (see `handlers/workflow-events.ts`).
 */

import { parseWorkflowSettings } from '@diagnosis/core/config';
import { createWorkflowEventsHandler } from './handlers/workflow-events.ts';
import { coldStart } from './setup/cold-start.ts';
import { readLinkedEnvironment } from './setup/linked-environment.ts';
import { createObservability } from './setup/observability.ts';
import { createTableStore } from './setup/table-store.ts';

const { store, options } = await coldStart(() => {
  const settings = parseWorkflowSettings(readLinkedEnvironment());
  return {
    store: createTableStore(settings),
    options: {
      workflowArn: settings.DIAGNOSIS_WORKFLOW_ARN,
      batchArn: settings.DIAGNOSIS_BATCH_ARN,
      flushReserveMs: settings.FLUSH_RESERVE_MS,
    },
  };
});

export const handler = createWorkflowEventsHandler(store, { ...createObservability('OnWorkflowStopped'), ...options });
