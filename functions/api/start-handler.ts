import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import {
  DiagnosisInputError,
  DiagnosisTenantBusyError,
  isEnded,
  MAX_START_WAIT_MS,
  resultOfStoredRun,
  type StartDiagnosisDeps,
  type StoredRun,
  startCheckedDiagnosis,
} from '@diagnosis/core';
import type { TenantAccessPolicy } from '@diagnosis/core/config';
import middy from '@middy/core';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { parseDiagnoseRequest } from '../diagnose/diagnose-request.ts';
import type { HandlerContext } from '../lambda/handler-context.ts';
import { type HttpApiEvent, json } from '../lambda/http-api-event.ts';
import { mapErrors } from '../lambda/map-errors.ts';
import { START_METRICS } from '../lambda/metric-names.ts';
import type { Observability } from '../lambda/observability.ts';
import { authorizeTenant } from './authorize-tenant.ts';
import { requireIamCaller } from './require-iam-caller.ts';

/** Where a run can be read, followed and cancelled. */
export function runLinks(runId: string) {
  return { run: `/runs/${runId}`, audit: `/runs/${runId}/audit`, cancel: `/runs/${runId}/cancel` };
}

/** The answer for a run: 200 with its result once it ended, else 202 with its status and links. */
function runAnswer(run: StoredRun): APIGatewayProxyStructuredResultV2 {
  if (isEnded(run.status)) return json(200, { ...resultOfStoredRun(run), links: runLinks(run.runId) });
  return json(202, { runId: run.runId, status: run.status, links: runLinks(run.runId) });
}

/** `?wait=<seconds>`: 0 to 25 (the HTTP API's own limit is 30 s). */
function waitOf(event: HttpApiEvent): number {
  const query = event.queryStringParameters ?? {};
  if (Object.keys(query).some((key) => key !== 'wait')) {
    throw new DiagnosisInputError('INVALID_QUERY_PARAMETER', 'only wait is accepted on this route');
  }
  if (query.wait === undefined) return 0;
  const seconds = Number(query.wait);
  if (!/^\d{1,2}$/.test(query.wait) || seconds * 1_000 > MAX_START_WAIT_MS) {
    throw new DiagnosisInputError('INVALID_QUERY_PARAMETER', 'wait is a whole number of seconds from 0 to 25');
  }
  return seconds * 1_000;
}

/**
 * `POST /diagnoses`, asynchronous: the IAM gate, the request parser, the tenant check, then `startDiagnosis` (the run
 * QUEUED if its enterprise is under its bound of open runs, the workflow started, idempotent per runId) — answered
 * within the gateway's limit: 202 `{ runId, status, links }`, or with `?wait=<s>` 200 with the result if the run ended
 * by then; 429 `TENANT_BUSY` with `Retry-After` when the enterprise has its maximum of open runs (nothing written, a
 * `RejectedStarts` metric counted).
 */
export function createStartDiagnosisHandler(
  deps: StartDiagnosisDeps,
  options: Observability & { policy: TenantAccessPolicy },
) {
  const { metrics } = options;
  return middy<HttpApiEvent, APIGatewayProxyStructuredResultV2, Error, HandlerContext>()
    .use(injectLambdaContext(options.logger, { resetKeys: true }))
    .use(mapErrors(options.logger))
    .use(requireIamCaller({ httpOnly: true }))
    .use(parseDiagnoseRequest('http'))
    .use(authorizeTenant(options.policy))
    .handler(async (event, context) => {
      const request = context.diagnoseRequest;
      if (request === undefined) throw new Error('the request parser did not run');
      const waitMs = Math.min(waitOf(event), Math.max(0, context.getRemainingTimeInMillis() - 2_000));
      options.logger.appendKeys({ runId: request.runId });
      try {
        return runAnswer(await startCheckedDiagnosis(request, deps, { waitMs }));
      } catch (error) {
        if (error instanceof DiagnosisTenantBusyError) {
          metrics.addMetric(START_METRICS.rejectedStarts, MetricUnit.Count, 1);
          metrics.publishStoredMetrics();
        }
        throw error;
      }
    });
}
