import type { WorkflowStarter } from '@diagnosis/core';
import { parseWorkflowSettings, type TenantAccessPolicy } from '@diagnosis/core/config';
import type { RunStore } from '@diagnosis/core/store';
import { coldStart } from './cold-start.ts';
import { readLinkedEnvironment } from './linked-environment.ts';
import { createTableStore } from './table-store.ts';
import { createWorkflow } from './workflow-setup.ts';

/** The cold start of the start and cancel functions: the table's store, the workflow, the tenant access policy. */
export function loadWorkflowStore(): Promise<{
  store: RunStore;
  workflow: WorkflowStarter;
  policy: TenantAccessPolicy;
}> {
  return coldStart(() => {
    const settings = parseWorkflowSettings(readLinkedEnvironment());
    return {
      store: createTableStore(settings),
      workflow: createWorkflow(settings),
      policy: settings.TENANT_ACCESS ?? null,
    };
  });
}
