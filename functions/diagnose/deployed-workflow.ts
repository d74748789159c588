import { SFNClient } from '@aws-sdk/client-sfn';
import type { DiagnosisWorkflow } from '@diagnosis/core';
import { SettingsError, type WorkflowSettings } from '@diagnosis/core/config';
import { createStepFunctionsWorkflow } from './step-functions-workflow.ts';

/**
 * The workflow a start or cancel function talks to: the DiagnosisWorkflow named by DIAGNOSIS_WORKFLOW_ARN, which a
 * deployment always sets. Without it the cold start fails naming the key. NOTE: there is no in-process fallback
 * here any more: it made these functions' bundles carry the whole model stack, and a Lambda is frozen once it has
 * answered. Local runs and tests compose the handlers with `createLocalDiagnosisWorkflow` (`@diagnosis/devkit`).
 */
export function createDeployedWorkflow(settings: WorkflowSettings): DiagnosisWorkflow {
  if (settings.DIAGNOSIS_WORKFLOW_ARN === undefined) throw new SettingsError(['DIAGNOSIS_WORKFLOW_ARN']);
  return createStepFunctionsWorkflow(new SFNClient({ maxAttempts: 3 }), settings.DIAGNOSIS_WORKFLOW_ARN);
}
