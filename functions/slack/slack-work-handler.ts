import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { safeErrorName } from '@diagnosis/core';
import { feedbackOf, runOf, type StoredRun } from '@diagnosis/core/store';
import middy from '@middy/core';
import type { Context, DynamoDBStreamEvent, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { SLACK_METRICS } from '../lambda/metric-names.ts';
import type { Observability } from '../lambda/observability.ts';
import { advanceCard, type CallBudget, type CardOutcome, DEFAULT_CALL_RESERVE_MS } from './advance-card.ts';
import { type ConversationDeps, type ConversationOutcome, handleSlackWork } from './slack-conversation.ts';
import { parseSlackWork, type SlackWork } from './slack-work.ts';

export interface SlackWorkOptions extends Observability {
  /** Puts work back on the SlackWork queue after `delaySeconds` (a 429's Retry-After, at most SQS's 900). */
  requeue(work: SlackWork, delaySeconds: number): Promise<void>;
  /** Kept free after a Slack call's own limit, for the writes that record it (default 1 s). */
  callReserveMs?: number;
  /** Runs of a stream batch, or messages of a queue batch, handled at once (default 4). */
  concurrency?: number;
}

type SlackWorkEvent = SQSEvent | DynamoDBStreamEvent;

/** Runs `handle` on every item, at most `limit` at a time. */
async function eachLimited<T>(items: readonly T[], limit: number, handle: (item: T) => Promise<void>) {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const item = items[next] as T;
      next += 1;
      await handle(item);
    }
  });
  await Promise.all(lanes);
}

/** The card outcome inside a work's outcome (a started run's card, a rating's redraw), if any. */
function cardOutcomeOf(outcome: ConversationOutcome): CardOutcome | null {
  if (outcome.outcome === 'STARTED' || outcome.outcome === 'RATED') return outcome.card;
  if (outcome.outcome === 'REFUSED' || outcome.outcome === 'RETRY') return null;
  return outcome;
}

/**
 * The SlackWork function, on two sources: the SlackWork queue (mentions, commands, ratings, card steps put back:
 * partial batch response) and the table's stream (run items that changed: each run's card advanced once per batch,
 * from the run's newest record by sequence number — older ones are coalesced away, wherever they are in the batch;
 * and new ratings given through the API or the command line, whose card draws its result again with every rating).
 * NOTE: it ends before its deadline whatever Slack does: work is handled a few at a time, a Slack call starts only
 * when its whole limit and the writes after it fit in the time left, and work that does not fit goes back on the
 * queue at once. A card step that must happen and could not (a 429, a failure, the channel's pace) goes back on the
 * queue with its delay; any other failure is logged by class and code and retried by the source.
 */
export function createSlackWorkHandler(deps: ConversationDeps, options: SlackWorkOptions) {
  const { logger, metrics } = options;
  const concurrency = options.concurrency ?? 4;
  const reserveMs = options.callReserveMs ?? DEFAULT_CALL_RESERVE_MS;
  const budgetOf = (context: Context): CallBudget => ({
    canCall: () => context.getRemainingTimeInMillis() > deps.slackTimeoutMs + reserveMs,
  });
  /** Logs and counts an outcome; puts back what it defers. */
  const settle = async (outcome: ConversationOutcome, what: string, work: SlackWork) => {
    logger.info('slack work', { what, ...outcome, ...('card' in outcome ? { card: outcome.card?.outcome } : {}) });
    if (outcome.outcome === 'RETRY') {
      metrics.addMetric(SLACK_METRICS.rateLimited, MetricUnit.Count, 1);
      await options.requeue(work, outcome.delaySeconds);
      return;
    }
    const card = cardOutcomeOf(outcome);
    if (card === null) return;
    if (card.outcome === 'UPDATED' || card.outcome === 'POSTED') {
      metrics.addMetric(SLACK_METRICS.cardUpdates, MetricUnit.Count, 1);
    } else if (card.outcome === 'DEFERRED') {
      metrics.addMetric(SLACK_METRICS.cardDeferred, MetricUnit.Count, 1);
      if (card.code === 'RATE_LIMITED') metrics.addMetric(SLACK_METRICS.rateLimited, MetricUnit.Count, 1);
      await options.requeue(
        {
          kind: 'card',
          runId: card.runId,
          attempt: card.attempt,
          ...(card.slotAt === null ? {} : { slotAt: card.slotAt }),
        },
        card.delaySeconds,
      );
    } else if (card.outcome === 'ABANDONED') {
      metrics.addMetric(SLACK_METRICS.cardAbandoned, MetricUnit.Count, 1);
      logger.error('slack card abandoned', { runId: card.runId, code: card.code });
    }
  };
  const failed = (error: unknown, fields: Record<string, unknown>) => {
    logger.error('slack work failed', { ...fields, error: safeErrorName(error), code: codeOf(error) });
    metrics.addMetric(SLACK_METRICS.workFailed, MetricUnit.Count, 1);
  };
  return middy<SlackWorkEvent, SQSBatchResponse>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(logMetrics(metrics))
    .handler(async (event, context) => {
      const budget = budgetOf(context);
      const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
      if (event.Records.length > 0 && 'dynamodb' in (event.Records[0] ?? {})) {
        // NOTE: one step per run per batch, from its newest image; the card's own item keeps the rest.
        const newest = new Map<string, { run: StoredRun | undefined; rated: boolean; sequence: string }>();
        for (const record of (event as DynamoDBStreamEvent).Records) {
          const image = record.dynamodb?.NewImage;
          if (image === undefined) continue;
          let item: Record<string, unknown>;
          try {
            item = unmarshall(image as Record<string, AttributeValue>);
          } catch {
            continue;
          }
          const sequence = record.dynamodb?.SequenceNumber ?? '';
          if (item.entity === FEEDBACK_ENTITY) {
            const runId = ratedRunOf(item, record.eventName);
            if (runId === null) continue;
            const kept = newest.get(runId);
            newest.set(runId, {
              run: kept?.run,
              rated: true,
              sequence: kept?.run === undefined ? sequence : kept.sequence,
            });
            continue;
          }
          let run: StoredRun;
          try {
            run = runOf(item);
          } catch {
            continue;
          }
          const kept = newest.get(run.runId);
          // NOTE: the newest by sequence number, not by place in the batch: an older image after it is not the run.
          if (kept?.run !== undefined && !isLater(sequence, kept.sequence)) continue;
          newest.set(run.runId, { run, rated: kept?.rated ?? false, sequence });
        }
        await eachLimited([...newest.entries()], concurrency, async ([runId, { run, rated, sequence }]) => {
          const work: SlackWork = { kind: 'card', runId };
          try {
            // A rating given through the API or the command line: the card's result is drawn again with it.
            if (rated && (await deps.cards.addRating(runId)) === 0 && run === undefined) return;
            if (!budget.canCall()) {
              await options.requeue(work, 0);
              return;
            }
            await settle(
              await advanceCard(runId, deps, budget, run === undefined ? {} : { known: run }),
              rated ? 'rating' : 'card',
              work,
            );
          } catch (error) {
            failed(error, { runId });
            batchItemFailures.push({ itemIdentifier: sequence });
          }
        });
        return { batchItemFailures };
      }
      await eachLimited((event as SQSEvent).Records, concurrency, async (record) => {
        const work = parseSlackWork(record.body);
        if (work === null) {
          logger.warn('slack work dropped', { messageId: record.messageId, code: 'BAD_MESSAGE' });
          return;
        }
        try {
          if (!budget.canCall()) {
            await options.requeue(work, 0);
            return;
          }
          await settle(await handleSlackWork(work, deps, budget), work.kind, work);
        } catch (error) {
          failed(error, { messageId: record.messageId });
          batchItemFailures.push({ itemIdentifier: record.messageId });
        }
      });
      return { batchItemFailures };
    });
}

/**
 * Whether a record with stream sequence number `a` comes after one with `b` (decimal strings of up to 40 digits);
 * when either is not one, the later in the batch (`a`) does.
 */
function isLater(a: string, b: string): boolean {
  const digits = /^[0-9]{1,40}$/;
  if (!digits.test(a) || !digits.test(b)) return true;
  return BigInt(a) > BigInt(b);
}

/** The stored entity of a rating (`run_feedback`), which the table's stream brings beside the runs. */
const FEEDBACK_ENTITY = 'run_feedback';

/**
 * The run a new rating's record is of, when its card must show it from the stream: a rating given through the API or
 * the command line. NOTE: a Slack rating redraws its card where it is recorded (`handleSlackWork`), so its record is
 * left alone here; a record that is no valid rating is ignored.
 */
function ratedRunOf(item: Record<string, unknown>, eventName: string | undefined): string | null {
  if (eventName !== 'INSERT') return null;
  try {
    const entry = feedbackOf(item);
    return entry.caller.startsWith('slack:') ? null : entry.runId;
  } catch {
    return null;
  }
}

function codeOf(error: unknown): string | null {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /^[A-Za-z0-9_]{1,64}$/.test(code) ? code : null;
}
