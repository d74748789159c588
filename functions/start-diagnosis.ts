/**
 * `POST /diagnoses` on the IAM-only InternalApi: checks and authorizes the request, queues the run and starts its
 * DiagnosisWorkflow execution (named by the runId), and answers within the gateway's limit (202, or 200 with the
 * result when `?wait=` saw the run end).
 */

import { loadRunControl } from './api/run-control.ts';
import { createStartDiagnosisHandler } from './api/start-handler.ts';
import { createObservability } from './lambda/observability.ts';

const { store, workflow, policy } = await loadRunControl();

export const handler = createStartDiagnosisHandler(
  { store, workflow },
  { ...createObservability('StartDiagnosis'), policy },
);
