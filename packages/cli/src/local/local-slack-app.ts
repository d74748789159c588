/**
 * The Slack app on this machine, as `diagnosis serve` and `diagnosis trigger … --slack` both run it: the two deployed
 * Slack functions (`composeLocalSlack`), the SlackWork queue's stand-in in this process (`createLocalQueue`: SQS
 * events, partial batch responses, a 429's requeue delay on a timer, redelivery and dead letters as deployed,
 * bounded), and the table stream's stand-in (`createLocalRunStream`: there is no stream locally, so each followed run
 * is read back every half second and its changes handed to SlackWork as stream records). Every run the watched
 * workflow starts is followed, so its card (if it has one) is kept up to date as the stream would keep it.
 */
import type { DiagnosisRunRequest, DiagnosisWorkflow } from '@diagnosis/core';
import { createLocalQueue, createLocalRunStream, lambdaContext } from '@diagnosis/devkit';
import { composeLocalSlack, type LocalSlack, type LocalSlackOptions } from '@diagnosis/functions';

/** Work put back for at most this long is waited for by `settle` (the channel's pace, a short Retry-After). */
const SETTLE_DELAYED_WITHIN_MS = 5_000;
/** SlackWork's timeout as deployed (sst.config.ts): each batch's Lambda context counts down from it. */
const SLACK_WORK_TIMEOUT_MS = 60_000;

export interface LocalSlackApp extends Pick<LocalSlack, 'requests' | 'served' | 'refused'> {
  /** The workflow with every run it starts followed (for the other routes that start runs). */
  watch(workflow: DiagnosisWorkflow): DiagnosisWorkflow;
  /** Follows a run's card (a run started elsewhere); false when the bounded set is full. */
  follow(runId: string): boolean;
  /**
   * Reads the followed runs once more and waits until the queue holds no work ready or in flight, nor work put back
   * for a few seconds (a card step paced to the channel's next post slot, a short Retry-After).
   */
  settle(): Promise<void>;
  /** Stops: no more deliveries, the timers cleared; how many delayed messages (Retry-After waits) were dropped. */
  close(): Promise<{ dropped: number }>;
}

export function startLocalSlackApp(
  options: Omit<LocalSlackOptions, 'enqueue' | 'requeue'> & {
    /** One line for the terminal (a dead letter, a run whose card is not followed): never a message's body. */
    say: (line: string) => void;
  },
): LocalSlackApp {
  const context = () => lambdaContext(SLACK_WORK_TIMEOUT_MS, 'SlackWork');
  const errorName = (error: unknown) => (error as { name?: unknown } | null)?.name ?? 'Error';
  const queue = createLocalQueue({
    name: 'SlackWorkQueue',
    deliver: (event) => slack.work(event, context()),
    onDeadLetter: (messageId, receives) =>
      options.say(`slack work ${messageId} dropped after ${receives} receives (the dead letters, deployed)`),
    onError: (error) => options.say(`SlackWork failed: ${String(errorName(error))}`),
  });
  const stream = createLocalRunStream({
    client: options.dynamo,
    tableName: options.tableName,
    deliver: (event) => slack.work(event, context()),
    onError: (error) => options.say(`SlackWork (cards) failed: ${String(errorName(error))}`),
  });
  const follow = (runId: string) => {
    const following = stream.follow(runId);
    if (!following) options.say(`the card of run ${runId} is not followed: too many runs are followed already`);
    return following;
  };
  const watch = (workflow: DiagnosisWorkflow): DiagnosisWorkflow => ({
    executionArnOf: (runId) => workflow.executionArnOf(runId),
    async start(request: DiagnosisRunRequest) {
      // NOTE: the run item exists before its workflow starts (startDiagnosis writes it first).
      follow(request.runId);
      await workflow.start(request);
    },
    stop: (runId) => workflow.stop(runId),
  });
  const slack = composeLocalSlack({
    ...options,
    workflow: watch(options.workflow),
    enqueue: async (work) => queue.send(JSON.stringify(work)),
    requeue: async (work, delaySeconds) => queue.send(JSON.stringify(work), delaySeconds),
  });
  return {
    requests: slack.requests,
    served: slack.served,
    refused: slack.refused,
    watch,
    follow,
    async settle() {
      // NOTE: a card step paced to the channel's next post slot, or put back by a 429, waits a few seconds at most.
      await queue.idle({ delayedWithinMs: SETTLE_DELAYED_WITHIN_MS });
      await stream.flush();
      await queue.idle({ delayedWithinMs: SETTLE_DELAYED_WITHIN_MS });
    },
    async close() {
      await stream.close();
      return queue.close();
    },
  };
}
