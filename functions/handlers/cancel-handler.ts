import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { cancelDiagnosis, isEnded, type RunStore, type WorkflowStarter } from '@diagnosis/core';
import type { TenantAccessPolicy } from '@diagnosis/core/config';
import middy from '@middy/core';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { HandlerContext } from '../middleware/handler-context.ts';
import { loadReadableRun } from '../middleware/load-readable-run.ts';
import { mapErrors } from '../middleware/map-errors.ts';
import { requireIamCaller } from '../middleware/require-iam-caller.ts';
import type { Observability } from '../setup/observability.ts';
import { type HttpApiEvent, json } from './http.ts';
import { runLinks } from './start-handler.ts';

/**
 * `POST /runs/{runId}/cancel`: the IAM gate, the run this caller may see (another tenant's answers like a missing
 * one), then `cancelDiagnosis`: a QUEUED run is CANCELLED at once (200), a RUNNING run is asked to stop and its
 * workflow execution stopped (202, `cancelRequestedAt` set; it ends CANCELLED within a few seconds), an ended run is
 * left as it is (200 with its status).
 */
export function createCancelRunHandler(
  deps: { store: Pick<RunStore, 'getRun' | 'requestCancel'>; workflow: Pick<WorkflowStarter, 'stop'> },
  options: Pick<Observability, 'logger'> & { policy: TenantAccessPolicy },
) {
  return middy<HttpApiEvent, APIGatewayProxyStructuredResultV2, Error, HandlerContext>()
    .use(injectLambdaContext(options.logger, { resetKeys: true }))
    .use(mapErrors(options.logger))
    .use(requireIamCaller({ httpOnly: true }))
    .use(loadReadableRun(deps.store, options.policy))
    .handler(async (_event, context) => {
      const target = context.readableRun;
      if (target === undefined) throw new Error('the run loader did not run');
      const run = (await cancelDiagnosis(target.runId, deps)) ?? target;
      return json(isEnded(run.status) ? 200 : 202, {
        runId: run.runId,
        status: run.status,
        cancelRequestedAt: run.cancelRequestedAt,
        links: runLinks(run.runId),
      });
    });
}
