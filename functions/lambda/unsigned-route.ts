/**
 * What the routes outside IAM share (the senders' webhooks, Slack's requests): the event shape they accept before any
 * check, the refusal they throw with its status and stable code, and the middy chain that answers a refusal with
 * that status (counted, logged by code) and any other failure with a 500 naming only the error's class.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { safeErrorName } from '@diagnosis/core';
import middy from '@middy/core';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import * as v from 'valibot';
import { errorResponse, type HttpApiEvent } from './http-api-event.ts';
import type { Observability } from './observability.ts';

/** The parts of an API Gateway HTTP API (v2) event these routes read; anything else is refused 400. */
export const unsignedEventShape = v.object({
  requestContext: v.object({ http: v.object({ method: v.string() }) }),
  headers: v.optional(v.nullable(v.record(v.string(), v.string()))),
  body: v.optional(v.nullable(v.string())),
  isBase64Encoded: v.optional(v.boolean()),
  pathParameters: v.optional(v.nullable(v.record(v.string(), v.string()))),
});

/** A request refused with its HTTP status and stable code; nothing was written before it was thrown. */
export class Refused extends Error {
  readonly status: number;
  readonly code: string;

  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export interface UnsignedRouteLabels {
  /** The metric counted once per refusal (with the refusal's code as metadata). */
  refusedMetric: string;
  /** The log lines' subject: `<subject> refused` / `<subject> failed`. */
  subject: string;
  /** The 500's message to the sender. */
  failedMessage: string;
}

export function createUnsignedRouteHandler(
  observability: Observability,
  labels: UnsignedRouteLabels,
  handle: (event: HttpApiEvent) => Promise<APIGatewayProxyStructuredResultV2>,
) {
  const { logger, metrics } = observability;
  return middy<HttpApiEvent, APIGatewayProxyStructuredResultV2>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(logMetrics(metrics))
    .handler(async (event) => {
      try {
        return await handle(event);
      } catch (error) {
        if (error instanceof Refused) {
          metrics.addMetric(labels.refusedMetric, MetricUnit.Count, 1);
          metrics.addMetadata('refusal', error.code);
          logger.warn(`${labels.subject} refused`, { code: error.code });
          return errorResponse(error.status, error.code, error.message);
        }
        logger.error(`${labels.subject} failed`, { error: safeErrorName(error) });
        return errorResponse(500, 'INTERNAL', labels.failedMessage);
      }
    });
}
