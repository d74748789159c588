import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { type DiagnosisResult, type DiagnosisServiceDeps, executeDiagnosisRun } from '@diagnosis/core';
import type { TenantAccessPolicy } from '@diagnosis/core/config';
import middy from '@middy/core';
import { authorizeTenant } from '../middleware/authorize-tenant.ts';
import { parseDiagnoseRequest } from '../middleware/diagnose-request.ts';
import type { HandlerContext } from '../middleware/handler-context.ts';
import { mapErrors } from '../middleware/map-errors.ts';
import { requireIamCaller } from '../middleware/require-iam-caller.ts';
import { type TenantLeaseOptions, takeTenantLease } from '../middleware/tenant-lease.ts';
import { type Observability, recordRunMetrics } from '../setup/observability.ts';
import { isHttpApiEvent, json } from './http.ts';

export interface DiagnoseHandlerOptions extends Observability {
  policy: TenantAccessPolicy;
  /** The per-enterprise cap on runs in progress; without it runs are not capped. */
  leases?: TenantLeaseOptions;
}

/**
 * The Diagnose Lambda for both event shapes, as a middy chain: Powertools' logger (Lambda context, the run id as a
 * persistent key) and EMF metrics (one set per run), the error table, the IAM gate for HTTP events, the request
 * parser, the tenant check, one of the enterprise's lease slots (when capped), then the service. A Step Functions
 * payload (trusted: whoever may start the workflow) returns the result object; an HTTP API event answers 200 with it.
 * Refusals and failures are answered by `mapErrors`; nothing is written for a refused request.
 */
export function createDiagnoseHandler(deps: DiagnosisServiceDeps, options: DiagnoseHandlerOptions) {
  const { logger, metrics, policy } = options;
  const service: DiagnosisServiceDeps = {
    ...deps,
    log: ({ message, ...fields }) => logger.info(String(message ?? 'diagnosis'), fields),
    onRunFinished: (result, durationMs) => recordRunMetrics(metrics, result, durationMs),
  };
  const chain = middy<unknown, unknown, Error, HandlerContext>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(logMetrics(metrics))
    .use(mapErrors(logger))
    .use(requireIamCaller())
    .use(parseDiagnoseRequest())
    .use(authorizeTenant(policy));
  if (options.leases !== undefined) chain.use(takeTenantLease({ logger, ...options.leases }));
  return chain.handler(async (event, context) => {
    const request = context.diagnoseRequest;
    if (request === undefined) throw new Error('the request parser did not run');
    logger.appendKeys({ runId: request.runId });
    const result: DiagnosisResult = await executeDiagnosisRun(
      { ...request, remainingMs: context.getRemainingTimeInMillis() },
      service,
    );
    return isHttpApiEvent(event) ? json(200, result) : result;
  });
}
