import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { ChangeMessageVisibilityCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { safeErrorName } from '@diagnosis/core';
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { Observability } from '../lambda/observability.ts';
import { type DeliveryDeps, deliverRunResult } from './deliver-run-result.ts';
import { DELIVERY_METRICS, deliveryBackoffSeconds } from './delivery-metric-names.ts';

export interface DeliveryQueueOptions extends Observability {
  sqs: Pick<SQSClient, 'send'>;
  /** The delivery queue's URL, to back a failed message off; without it SQS's visibility timeout applies. */
  queueUrl: string | undefined;
  maxReceives: number;
}

/**
 * SQS (the bus's rule → the delivery queue): each message is one result event; each is delivered on its own and
 * reported alone (partial batch response). A message with a destination still to deliver comes back after a backoff
 * (30 s doubling); after `maxReceives` tries SQS moves it to the dead-letter queue. Never throws for a message.
 */
export function createDeliveryQueueHandler(deps: DeliveryDeps, options: DeliveryQueueOptions) {
  const { logger, metrics } = options;
  return middy<SQSEvent, SQSBatchResponse>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(logMetrics(metrics))
    .handler(async (event) => {
      const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
      for (const record of event.Records) {
        const receiveCount = Math.max(1, Number.parseInt(record.attributes.ApproximateReceiveCount, 10) || 1);
        let retry: boolean;
        try {
          const report = await deliverRunResult(record.body, { receiveCount, maxReceives: options.maxReceives }, deps);
          if (report.kind === 'DROPPED') {
            logger.warn('delivery message dropped', { messageId: record.messageId, code: report.code });
            metrics.addMetric(DELIVERY_METRICS.messagesDropped, MetricUnit.Count, 1);
            retry = false;
          } else {
            if (report.reveal === 'PSEUDONYM_MAP_UNREADABLE' || report.reveal === 'PSEUDONYM_MAP_INCOMPLETE') {
              // NOTE: the result went out masked; the code says why, never a value.
              logger.warn('delivery reveal unavailable', { runId: report.runId, code: report.reveal });
            }
            for (const outcome of report.destinations) {
              logger.info('delivery', { runId: report.runId, receiveCount, reveal: report.reveal, ...outcome });
              if (outcome.outcome === 'DELIVERED') metrics.addMetric(DELIVERY_METRICS.delivered, MetricUnit.Count, 1);
              if (outcome.outcome === 'RETRYING' || outcome.outcome === 'DEAD_LETTERED') {
                metrics.addMetric(DELIVERY_METRICS.attemptsFailed, MetricUnit.Count, 1);
              }
              if (outcome.outcome === 'DEAD_LETTERED')
                metrics.addMetric(DELIVERY_METRICS.deadLettered, MetricUnit.Count, 1);
            }
            retry = report.retry;
          }
        } catch (error) {
          // NOTE: the table or a client failed: the message comes back; only the error's class is logged.
          logger.error('delivery failed', { messageId: record.messageId, error: safeErrorName(error) });
          metrics.addMetric(DELIVERY_METRICS.attemptsFailed, MetricUnit.Count, 1);
          retry = true;
        }
        if (!retry) continue;
        batchItemFailures.push({ itemIdentifier: record.messageId });
        if (options.queueUrl !== undefined && receiveCount < options.maxReceives) {
          await options.sqs
            .send(
              new ChangeMessageVisibilityCommand({
                QueueUrl: options.queueUrl,
                ReceiptHandle: record.receiptHandle,
                VisibilityTimeout: deliveryBackoffSeconds(receiveCount),
              }),
            )
            .catch((error: unknown) => logger.warn('backoff not set', { error: safeErrorName(error) }));
        }
      }
      return { batchItemFailures };
    });
}
