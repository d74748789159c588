/**
 * The Diagnose Lambda: the DiagnosisWorkflow's task (its only way in). Settings are parsed and clients built once, at
 * cold start (a bad setting fails the cold start, naming the keys only); the handler is a middy chain
 * (`handlers/diagnose-handler.ts`).
 */

import { parseDiagnosisSettings } from '@diagnosis/core/config';
import { createDiagnoseHandler } from './handlers/diagnose-handler.ts';
import { coldStart } from './setup/cold-start.ts';
import { buildDiagnosisDependencies, createDynamoClient } from './setup/dependencies.ts';
import { readLinkedEnvironment } from './setup/linked-environment.ts';
import { createObservability } from './setup/observability.ts';
import { buildTenantLeases } from './setup/tenant-leases.ts';

const { dependencies, leases } = await coldStart(async () => {
  const settings = parseDiagnosisSettings(readLinkedEnvironment());
  // One DynamoDB client (one connection pool) for the audit store and the lease slots: the same table.
  const dynamo = createDynamoClient(settings);
  return {
    dependencies: await buildDiagnosisDependencies(settings, dynamo),
    leases: buildTenantLeases(settings, dynamo),
  };
});

export const handler = createDiagnoseHandler(dependencies, { ...createObservability('Diagnose'), leases });
