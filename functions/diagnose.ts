/**
 * The Diagnose Lambda: invoked by the DiagnosisWorkflow state machine or by `POST /diagnoses` on the IAM-only
 * InternalApi. Settings are parsed and clients built once, at cold start (a bad setting fails the cold start, naming
 * the keys only); the handler is a middy chain (`handlers/diagnose-handler.ts`).
 */

import { parseDiagnosisSettings } from '@diagnosis/core/config';
import { createDiagnoseHandler } from './handlers/diagnose-handler.ts';
import { coldStart } from './setup/cold-start.ts';
import { buildDiagnosisDependencies } from './setup/dependencies.ts';
import { readLinkedEnvironment } from './setup/linked-environment.ts';
import { createObservability } from './setup/observability.ts';
import { buildTenantLeases } from './setup/tenant-leases.ts';

const { dependencies, policy, leases } = await coldStart(async () => {
  const settings = parseDiagnosisSettings(readLinkedEnvironment());
  return {
    dependencies: await buildDiagnosisDependencies(settings),
    policy: settings.TENANT_ACCESS ?? null,
    leases: buildTenantLeases(settings),
  };
});

export const handler = createDiagnoseHandler(dependencies, { ...createObservability('Diagnose'), policy, leases });
