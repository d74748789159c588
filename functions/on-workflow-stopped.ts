/**
 * EventBridge: a DiagnosisWorkflow execution that was stopped (ABORTED) cancels its run; one that FAILED or TIMED_OUT
 * closes its unfinished run as FAILED.
 */

import { parseWorkflowSettings } from '@diagnosis/core/config';
import { createWorkflowEventsHandler } from './handlers/workflow-events.ts';
import { coldStart } from './setup/cold-start.ts';
import { createTableStore } from './setup/dynamo-client.ts';
import { readLinkedEnvironment } from './setup/linked-environment.ts';
import { createObservability } from './setup/observability.ts';

const { store, workflowArn } = await coldStart(() => {
  const settings = parseWorkflowSettings(readLinkedEnvironment());
  return { store: createTableStore(settings), workflowArn: settings.DIAGNOSIS_WORKFLOW_ARN };
});

export const handler = createWorkflowEventsHandler(store, { ...createObservability('OnWorkflowStopped'), workflowArn });
