/**
 * The Diagnose Lambda: invoked by the DiagnosisWorkflow state machine or by `POST /diagnoses` on the IAM-only
 * InternalApi. Settings are parsed and clients built once, at cold start (a bad setting fails the cold start, naming
 * the keys only).
 */

import { parseDiagnosisSettings } from '@diagnosis/core/config';
import middy from '@middy/core';
import { coldStart } from './runtime/cold-start.ts';
import { buildDiagnosisDependencies } from './runtime/dependencies.ts';
import { createDiagnoseHandler } from './runtime/diagnose-handler.ts';
import { readLinkedEnvironment } from './runtime/linked-environment.ts';

const { dependencies, policy } = await coldStart(async () => {
  const settings = parseDiagnosisSettings(readLinkedEnvironment());
  return { dependencies: await buildDiagnosisDependencies(settings), policy: settings.TENANT_ACCESS ?? null };
});

export const handler = middy().handler(createDiagnoseHandler(dependencies, policy));
