/**
 * The Diagnose Lambda: the DiagnosisWorkflow's task (its only way in). Settings are parsed and clients built once, at
 * cold start (a bad setting fails the cold start, naming the keys only), by the composition root the command line
 * shares (`setup/diagnose-function.ts`); the handler is a middy chain (`handlers/diagnose-handler.ts`).
 */

import { parseDiagnosisSettings } from '@diagnosis/core/config';
import { coldStart } from './setup/cold-start.ts';
import { composeDiagnoseFunction } from './setup/diagnose-function.ts';
import { readLinkedEnvironment } from './setup/linked-environment.ts';
import { createObservability } from './setup/observability.ts';

const { handler: diagnose } = await coldStart(() =>
  composeDiagnoseFunction(parseDiagnosisSettings(readLinkedEnvironment()), createObservability('Diagnose')),
);

export const handler = diagnose;
