import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { RunStore, StoredRun } from '@diagnosis/core';
import type { IamCaller, TenantAccessPolicy } from '@diagnosis/core/config';
import middy from '@middy/core';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { HandlerContext } from '../lambda/handler-context.ts';
import type { HttpApiEvent } from '../lambda/http-api-event.ts';
import { mapErrors } from '../lambda/map-errors.ts';
import type { Observability } from '../lambda/observability.ts';
import { loadReadableRun } from './load-readable-run.ts';
import { requireIamCaller } from './require-iam-caller.ts';

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
