import { cancelDiagnosis, type DiagnosisWorkflow, isEnded, type RunStore, statusWordOf } from '@diagnosis/core';
import { json } from '../lambda/http-api-event.ts';
import { type RunRouteOptions, runRoute } from './run-route.ts';
import { runLinks } from './start-handler.ts';

/**
 * `POST /runs/{runId}/cancel`: the IAM gate, the run this caller may see (another tenant's answers like a missing
 * one), then `cancelDiagnosis`: a QUEUED run is CANCELLED at once (200), a RUNNING run is asked to stop and its
 * workflow execution stopped (202, `cancelRequestedAt` set; it ends CANCELLED within a few seconds), an ended run is
 * left as it is (200 with its status, in the word `GET /runs/{id}` answers: a published run is `PUBLISHED`).
 */
export function createCancelRunHandler(
  deps: { store: Pick<RunStore, 'getRun' | 'requestCancel'>; workflow: Pick<DiagnosisWorkflow, 'stop'> },
  options: RunRouteOptions,
) {
  return runRoute(deps.store, options, async (target) => {
    const run = (await cancelDiagnosis(target.runId, deps)) ?? target;
    return json(isEnded(run.status) ? 200 : 202, {
      runId: run.runId,
      status: statusWordOf(run.status),
      cancelRequestedAt: run.cancelRequestedAt,
      links: runLinks(run.runId),
    });
  });
}
