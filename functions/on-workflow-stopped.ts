/**
 * EventBridge: a DiagnosisWorkflow execution (or a DiagnosisBatch child execution) that was stopped (ABORTED) cancels
 * its own run; one that FAILED or TIMED_OUT closes its own run if it is still QUEUED, or if no invocation can still be
 * running it (see `diagnose/workflow-events.ts`).
 */

import { parseWorkflowSettings } from '@diagnosis/core/config';
import { createTableStore } from './diagnose/table-store.ts';
import { createWorkflowEventsHandler } from './diagnose/workflow-events.ts';
import { coldStart } from './lambda/cold-start.ts';
import { readLinkedEnvironment } from './lambda/linked-environment.ts';
import { createObservability } from './lambda/observability.ts';

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
