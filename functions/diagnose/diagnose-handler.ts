import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { type DiagnosisResult, type DiagnosisServiceDeps, executeCheckedDiagnosisRun } from '@diagnosis/core';
import middy from '@middy/core';
import type { HandlerContext } from '../lambda/handler-context.ts';
import { mapErrors } from '../lambda/map-errors.ts';
import { type Observability, recordRunMetrics } from '../lambda/observability.ts';
import { parseDiagnoseRequest } from './diagnose-request.ts';
import { type TenantLeaseOptions, takeTenantLease } from './tenant-lease.ts';

export interface DiagnoseHandlerOptions extends Observability {
  /** The per-enterprise cap on runs in progress; without it runs are not capped. */
  leases?: TenantLeaseOptions | undefined;
}

/**
 * The Diagnose Lambda, the DiagnosisWorkflow's task, as a middy chain: Powertools' logger (Lambda context, the run
 * id as a persistent key) and EMF metrics (one set per run), the error table, the payload parser, one of the
 * enterprise's lease slots (when capped), then the service, which takes the QUEUED run (or starts one the workflow
 * was given directly), runs it, and returns the result object. The payload is trusted as a whole: whoever may start
 * the workflow may name any enterprise. Refusals become the named errors the workflow catches; nothing is written
 * for a refused payload.
 */
export function createDiagnoseHandler(deps: DiagnosisServiceDeps, options: DiagnoseHandlerOptions) {
  const { logger, metrics } = options;
  const service: DiagnosisServiceDeps = {
    ...deps,
    log: ({ message, ...fields }) => logger.info(String(message ?? 'diagnosis'), fields),
    // NOTE: the run's process metrics come from the table's stream (run-finished-stream-handler.ts), where every
    // run's end passes, also one this invocation did not decide.
    onRunFinished: (result, durationMs) => recordRunMetrics(metrics, result, durationMs),
  };
  const chain = middy<unknown, DiagnosisResult, Error, HandlerContext>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(logMetrics(metrics))
    .use(mapErrors(logger))
    .use(parseDiagnoseRequest('workflow'));
  if (options.leases !== undefined) chain.use(takeTenantLease({ logger, ...options.leases }));
  return chain.handler(async (_event, context) => {
    const request = context.diagnoseRequest;
    if (request === undefined) throw new Error('the request parser did not run');
    logger.appendKeys({ runId: request.runId });
    return executeCheckedDiagnosisRun({ ...request, remainingMs: context.getRemainingTimeInMillis() }, service);
  });
}
