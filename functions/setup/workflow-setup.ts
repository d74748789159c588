import { SFNClient } from '@aws-sdk/client-sfn';
import type { WorkflowStarter } from '@diagnosis/core';
import type { WorkflowSettings } from '@diagnosis/core/config';
import { createInProcessWorkflow, createStepFunctionsWorkflow } from './workflow.ts';

/**
 * The workflow a start or cancel function talks to: the DiagnosisWorkflow when DIAGNOSIS_WORKFLOW_ARN is set (always
 * in a deployment), else the Diagnose handler in this process (local runs and tests).
 */
export function createWorkflow(settings: WorkflowSettings): WorkflowStarter {
  if (settings.DIAGNOSIS_WORKFLOW_ARN !== undefined) {
    return createStepFunctionsWorkflow(new SFNClient({ maxAttempts: 3 }), settings.DIAGNOSIS_WORKFLOW_ARN);
  }
  return createInProcessWorkflow(async () => (await import('../diagnose.ts')).handler as never);
}
