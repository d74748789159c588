import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { safeErrorName } from '@diagnosis/core';
import { runOf, type StoredRun } from '@diagnosis/core/store';
import middy from '@middy/core';
import type { DynamoDBStreamEvent, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { SLACK_METRICS } from '../lambda/metric-names.ts';
import type { Observability } from '../lambda/observability.ts';
import { type ConversationDeps, type ConversationOutcome, followRun, handleSlackWork } from './slack-conversation.ts';
import { parseSlackWork, type SlackWork } from './slack-work.ts';

export interface SlackWorkOptions extends Observability {
  /** Puts work back on the SlackWork queue after `delaySeconds` (a 429's Retry-After, at most SQS's 900). */
  requeue(work: SlackWork, delaySeconds: number): Promise<void>;
}

type SlackWorkEvent = SQSEvent | DynamoDBStreamEvent;

/**
 * The SlackWork function, on two sources: the SlackWork queue (mentions, commands, ratings, cards to finish: each
 * message on its own, partial batch response) and the table's stream (run items that changed: each run's card
 * brought up to date once per batch, from the newest record of that run — older ones are coalesced away). A 429 puts
 * the work back on the queue after its Retry-After; any other failure is logged by class and code and retried by
 * the source.
 */
export function createSlackWorkHandler(deps: ConversationDeps, options: SlackWorkOptions) {
  const { logger, metrics } = options;
  const report = (outcome: ConversationOutcome, what: string) => {
    logger.info('slack work', { what, ...outcome });
    if (outcome.outcome === 'UPDATED') metrics.addMetric(SLACK_METRICS.cardUpdates, MetricUnit.Count, 1);
    if (outcome.outcome === 'RETRY') metrics.addMetric(SLACK_METRICS.rateLimited, MetricUnit.Count, 1);
  };
  return middy<SlackWorkEvent, SQSBatchResponse>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(logMetrics(metrics))
    .handler(async (event) => {
      const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
      if (event.Records.length > 0 && 'dynamodb' in (event.Records[0] ?? {})) {
        // NOTE: one update per run per batch, from its newest image; the store's slot keeps the interval across batches.
        const newest = new Map<string, { run: StoredRun; sequence: string }>();
        for (const record of (event as DynamoDBStreamEvent).Records) {
          const image = record.dynamodb?.NewImage;
          if (image === undefined) continue;
          let run: StoredRun;
          try {
            run = runOf(unmarshall(image as Record<string, AttributeValue>));
          } catch {
            continue;
          }
          newest.set(run.runId, { run, sequence: record.dynamodb?.SequenceNumber ?? '' });
        }
        for (const { run, sequence } of newest.values()) {
          try {
            const outcome = await followRun(run.runId, deps, run);
            report(outcome, 'card');
            if (outcome.outcome === 'RETRY')
              await options.requeue({ kind: 'card', runId: run.runId }, outcome.delaySeconds);
          } catch (error) {
            logger.error('slack card failed', { runId: run.runId, error: safeErrorName(error), code: codeOf(error) });
            metrics.addMetric(SLACK_METRICS.workFailed, MetricUnit.Count, 1);
            batchItemFailures.push({ itemIdentifier: sequence });
          }
        }
        return { batchItemFailures };
      }
      for (const record of (event as SQSEvent).Records) {
        const work = parseSlackWork(record.body);
        if (work === null) {
          logger.warn('slack work dropped', { messageId: record.messageId, code: 'BAD_MESSAGE' });
          continue;
        }
        try {
          const outcome = await handleSlackWork(work, deps);
          report(outcome, work.kind);
          if (outcome.outcome === 'RETRY') await options.requeue(work, outcome.delaySeconds);
        } catch (error) {
          logger.error('slack work failed', {
            messageId: record.messageId,
            error: safeErrorName(error),
            code: codeOf(error),
          });
          metrics.addMetric(SLACK_METRICS.workFailed, MetricUnit.Count, 1);
          batchItemFailures.push({ itemIdentifier: record.messageId });
        }
      }
      return { batchItemFailures };
    });
}

function codeOf(error: unknown): string | null {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /^[A-Za-z0-9_]{1,64}$/.test(code) ? code : null;
}
