import type { DiagnosisWorkflow } from '@diagnosis/core';
import { parseWorkflowSettings, type TenantAccessPolicy } from '@diagnosis/core/config';
import type { RunStore } from '@diagnosis/core/store';
import { createDeployedWorkflow } from '../diagnose/deployed-workflow.ts';
import { createTableStore } from '../diagnose/table-store.ts';
import { coldStart } from '../lambda/cold-start.ts';
import { readLinkedEnvironment } from '../lambda/linked-environment.ts';

/**
 * The cold start of the functions that start and cancel runs (run control): the table's store, the workflow, the
 * tenant access policy.
 */
export function loadRunControl(): Promise<{
  store: RunStore;
  workflow: DiagnosisWorkflow;
  policy: TenantAccessPolicy;
}> {
  return coldStart(() => {
    const settings = parseWorkflowSettings(readLinkedEnvironment());
    return {
      store: createTableStore(settings),
      workflow: createDeployedWorkflow(settings),
      policy: settings.TENANT_ACCESS ?? null,
    };
  });
}
