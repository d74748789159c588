import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { RunStore, StoredRun } from '@diagnosis/core';
import type { IamCaller, TenantAccessPolicy } from '@diagnosis/core/config';
import middy from '@middy/core';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { HttpApiEvent } from '../http/http-api-event.ts';
import type { HandlerContext } from '../middleware/handler-context.ts';
import { loadReadableRun } from '../middleware/load-readable-run.ts';
import { mapErrors } from '../middleware/map-errors.ts';
import { requireIamCaller } from '../middleware/require-iam-caller.ts';
import type { Observability } from '../setup/observability.ts';

export type RunRouteOptions = Pick<Observability, 'logger'> & { policy: TenantAccessPolicy };

/**
 * The chain of every `/runs/{runId}…` route (read or cancel): logger, the error table, the IAM gate, the run this
 * caller may see (another tenant's answers like a missing one). The one place these routes' gate is written.
 */
export function runRoute(
  store: Pick<RunStore, 'getRun'>,
  options: RunRouteOptions,
  handle: (run: StoredRun, event: HttpApiEvent, caller: IamCaller) => Promise<APIGatewayProxyStructuredResultV2>,
) {
  return middy<HttpApiEvent, APIGatewayProxyStructuredResultV2, Error, HandlerContext>()
    .use(injectLambdaContext(options.logger, { resetKeys: true }))
    .use(mapErrors(options.logger))
    .use(requireIamCaller({ httpOnly: true }))
    .use(loadReadableRun(store, options.policy))
    .handler(async (event, context) => {
      const run = context.readableRun;
      if (run === undefined || context.caller === undefined) throw new Error('the run loader did not run');
      return handle(run, event, context.caller);
    });
}
