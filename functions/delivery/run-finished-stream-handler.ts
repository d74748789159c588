import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { OUTCOME_DIMENSION } from '../lambda/metric-names.ts';
import { type Observability, recordProcessMetrics } from '../lambda/observability.ts';
import { DELIVERY_METRICS } from './delivery-metric-names.ts';
import { type PublishDeps, publishRunFinished } from './publish-run-finished.ts';

/**
 * DynamoDB Streams (the table, NEW_AND_OLD_IMAGES): puts one `Diagnosis Run Finished` on the bus for every run that
 * ended in the batch; records whose event could not be put are reported for retry (partial batch response). Emits
 * every ended run's process metrics from its stored scorecard: a run that never ran or was closed by the sweeper or
 * a workflow's failure has them as well as one its invocation completed.
 */
export function createRunFinishedStreamHandler(deps: PublishDeps, options: Observability) {
  const { logger, metrics } = options;
  return middy<DynamoDBStreamEvent, DynamoDBBatchResponse>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(logMetrics(metrics))
    .handler(async (event) => {
      const report = await publishRunFinished(event.Records, deps);
      // Every run's process metrics, whoever ended it, each in a record of its own under the run's outcome, once its
      // event was put (a record the stream retries is counted when it is).
      const retried = new Set(report.batchItemFailures.map((failure) => failure.itemIdentifier));
      for (const closed of report.scored) {
        if (retried.has(closed.sequenceNumber)) continue;
        metrics.addDimension(OUTCOME_DIMENSION, closed.outcome);
        recordProcessMetrics(metrics, closed.scorecard);
        metrics.publishStoredMetrics();
      }
      if (report.published > 0) metrics.addMetric(DELIVERY_METRICS.eventsPublished, MetricUnit.Count, report.published);
      if (report.batchItemFailures.length > 0) {
        metrics.addMetric(DELIVERY_METRICS.eventsPublishFailed, MetricUnit.Count, report.batchItemFailures.length);
        logger.warn('result events not put', { records: report.batchItemFailures.length });
      }
      for (const skipped of report.skipped) {
        logger.error(
          skipped.code === 'CORRUPT_ITEM' ? 'ended run item unreadable' : 'result event over the bus limit',
          skipped,
        );
      }
      return { batchItemFailures: report.batchItemFailures };
    });
}
