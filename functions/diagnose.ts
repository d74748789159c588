/**
 * The Diagnose Lambda: the DiagnosisWorkflow's task (its only way in). Settings are parsed and clients built once, at
 * cold start (a bad setting fails the cold start, naming the keys only), by the composition root the command line
 * shares (`diagnose/diagnose-function.ts`); the handler is a middy chain (`diagnose/diagnose-handler.ts`).
 */

import { parseDiagnosisSettings } from '@diagnosis/core/config';
import { composeDiagnoseFunction } from './diagnose/diagnose-function.ts';
import { coldStart } from './lambda/cold-start.ts';
import { readLinkedEnvironment } from './lambda/linked-environment.ts';
import { createObservability } from './lambda/observability.ts';

const { handler: diagnose } = await coldStart(() =>
  composeDiagnoseFunction(parseDiagnosisSettings(readLinkedEnvironment()), createObservability('Diagnose')),
);

export const handler = diagnose;
