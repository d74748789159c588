/**
 * The Slack app's world for the card's tests: the real SlackWork and SlackRequests handlers on DynamoDB Local (a table
 * with its stream, read back as Lambda's stream events), the official Slack client against a loopback Slack Web API
 * that enforces rate tiers, `chat.postMessage`'s one a second per channel and Block Kit's limits, and fails calls on
 * demand; the SlackWork queue as SQS behaves (a delayed message becomes visible at its time, a failed one comes back);
 * and one virtual clock for all of them (the runs, the cards, Slack's windows and `Retry-After`, the queue's delays,
 * and the Lambda invocations' remaining time), so no test waits on a real timer.
 * NOTE: over 300 lines on purpose: one world for the card's tests: the handlers, the table and its stream, the
 * loopback Slack API with its rate tiers and limits start and stop together.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DEVELOPMENT_MASKING_SECRET, type ProgressSnapshot } from '@diagnosis/core';
import {
  createDynamoClient,
  createDynamoFeedbackStore,
  createDynamoRunStore,
  type DynamoClientTimeouts,
  type RunStore,
} from '@diagnosis/core/store';
import { type LoopbackSlack, type SlackFault, startLoopbackSlack } from '@diagnosis/devkit';
import type { Context, DynamoDBRecord, DynamoDBStreamEvent, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { createObservability } from '../../functions/lambda/observability.ts';
import { composeRating } from '../../functions/ratings/rating-setup.ts';
import { createDynamoCardStore } from '../../functions/slack/dynamo-card-store.ts';
import { createSlackApi } from '../../functions/slack/slack-api.ts';
import type { ConversationDeps } from '../../functions/slack/slack-conversation.ts';
import { createSlackRequestHandler } from '../../functions/slack/slack-request-handler.ts';
import { resolveSlackApps } from '../../functions/slack/slack-settings.ts';
import type { SlackWork } from '../../functions/slack/slack-work.ts';
import { createSlackWorkHandler } from '../../functions/slack/slack-work-handler.ts';
import { localDynamoClient } from './dynamodb.ts';
import { recordingWorkflow } from './recording-workflow.ts';
import { SLACK_CHANNEL, SLACK_TEAM, slackEvent } from './slack-requests.ts';
import { createStreamTable, type StreamTable } from './table-stream.ts';

export const WORLD_TOKEN = 'xoxb-1001-0123456789-loopback';
export const WORLD_SIGNING = 'signing-secret-e1001-0123456789';
export const WORLD_START = Date.parse('2026-12-03T02:00:00.000Z');
/** A second mapped channel of the app (the first is the alert channel). */
export const OTHER_CHANNEL = 'C0E1001BB';

export const worldApps = resolveSlackApps(
  [
    {
      id: 'e1001',
      enterpriseId: 'E1001',
      teamId: SLACK_TEAM,
      channels: [SLACK_CHANNEL, OTHER_CHANNEL],
      alertChannel: SLACK_CHANNEL,
      botTokenSecret: 'SlackE1001Bot',
      signingSecretSecret: 'SlackE1001Signing',
    },
  ],
  (name) => ({ SlackE1001Bot: WORLD_TOKEN, SlackE1001Signing: WORLD_SIGNING })[name],
);

export interface QueuedWork {
  id: string;
  work: SlackWork;
  visibleAt: number;
  receives: number;
}

export interface SlackWorldOptions {
  /** The Slack client's limit per call, in real milliseconds (a `hang` fault lasts this long). */
  slackTimeoutMs?: number;
  limits?: Record<string, { calls: number; windowMs: number }>;
  /** Runs or messages a SlackWork invocation handles at once (the function's default: 4). */
  concurrency?: number;
  /**
   * The DynamoDB the handlers reach (their card store and run reads): a fault proxy's endpoint, with the client's
   * timeouts (real time). Absent: the test run's DynamoDB Local, as the world's own `runs` always is.
   */
  handlerDynamo?: { endpoint: string; timeouts: DynamoClientTimeouts };
}

export interface SlackWorld {
  now(): number;
  advance(ms: number): void;
  slack: LoopbackSlack;
  /** Faults for the next matching calls, consumed in order. */
  failNext(method: string, fault: SlackFault, count?: number): void;
  /** Decides every call's fault (replaces `failNext`'s list while set). */
  setFault(decide: ((call: { method: string; args: Record<string, unknown> }) => SlackFault | undefined) | null): void;
  dynamo: DynamoDBClient;
  runs: RunStore;
  deps: ConversationDeps;
  table: StreamTable;
  recorded: ReturnType<typeof recordingWorkflow>;
  queue: QueuedWork[];
  /** A Lambda context whose remaining time counts down on the virtual clock. */
  context(remainingMs?: number): Context;
  /** Every record the table's stream has since last time. */
  readStream(): Promise<DynamoDBRecord[]>;
  /** Records through the SlackWork handler as one stream batch. */
  handleStream(records: DynamoDBRecord[], context?: Context): Promise<SQSBatchResponse>;
  /** The visible queue messages (or the given ones) through the SlackWork handler as one SQS batch. */
  handleQueue(messages?: QueuedWork[], context?: Context): Promise<SQSBatchResponse>;
  /** Stream and queue handled until nothing is left, moving the clock to each delayed message (bounded). */
  settle(maxRounds?: number): Promise<void>;
  /** The signed Slack request through the SlackRequests handler; its work goes on the queue. */
  post(kind: string, body: string, contentType: string, retryNum?: number): Promise<unknown>;
  /** A run as the Trigger starts it (an alarm in the enterprise's alert channel). */
  triggeredRun(runId: string): Promise<void>;
  /** Top-level messages of a channel (the cards; thread replies left out). */
  cardsIn(channel?: string): LoopbackSlack['messages'] extends Map<string, infer M> ? M[] : never;
  close(): Promise<void>;
}

export const progressOf = (rounds: number): ProgressSnapshot => ({
  modelCalls: rounds,
  toolCalls: rounds,
  rejectedToolCalls: 0,
  totalTokens: rounds * 1_000,
  checks: Array.from({ length: rounds }, (_, index) => ({
    toolCallId: `call_${index}`,
    toolName: index % 2 === 0 ? ('query_logs' as const) : ('query_mysql' as const),
    status: 'READY' as const,
    empty: false,
    evaluation: null,
  })),
});

export async function startSlackWorld(options: SlackWorldOptions = {}): Promise<SlackWorld> {
  let now = WORLD_START;
  const dynamo = localDynamoClient();
  const table = await createStreamTable(dynamo);
  const planned: { method: string; fault: SlackFault }[] = [];
  let decide: ((call: { method: string; args: Record<string, unknown> }) => SlackFault | undefined) | null = null;
  const slack = await startLoopbackSlack({
    token: WORLD_TOKEN,
    now: () => now,
    ...(options.limits === undefined ? {} : { limits: options.limits }),
    fault: (call) => {
      if (decide !== null) return decide(call);
      const index = planned.findIndex((entry) => entry.method === call.method);
      if (index === -1) return undefined;
      const [entry] = planned.splice(index, 1);
      return entry?.fault;
    },
  });
  const runs = createDynamoRunStore({ client: dynamo, tableName: table.tableName, now: () => now });
  const handlerDynamo =
    options.handlerDynamo === undefined
      ? dynamo
      : createDynamoClient(
          { DIAGNOSIS_TABLE_NAME: table.tableName, DYNAMODB_ENDPOINT: options.handlerDynamo.endpoint },
          {},
          options.handlerDynamo.timeouts,
        );
  const handlerRuns =
    handlerDynamo === dynamo
      ? runs
      : createDynamoRunStore({ client: handlerDynamo, tableName: table.tableName, now: () => now });
  const cards = createDynamoCardStore({ client: handlerDynamo, tableName: table.tableName });
  const timeoutMs = options.slackTimeoutMs ?? 5_000;
  const api = createSlackApi({ token: WORLD_TOKEN, timeoutMs, apiUrl: slack.apiUrl });
  const recorded = recordingWorkflow();
  const deps: ConversationDeps = {
    apps: worldApps,
    slackOf: () => api,
    cards,
    runs: handlerRuns,
    feedback: createDynamoFeedbackStore({ client: dynamo, tableName: table.tableName }),
    start: { store: runs, workflow: recorded.workflow },
    rate: composeRating({
      client: dynamo,
      tableName: table.tableName,
      masking: { secret: DEVELOPMENT_MASKING_SECRET, mode: 'identifiers' },
      pastIncidentRetentionDays: 730,
      now: () => now,
    }),
    now: () => now,
    slackTimeoutMs: timeoutMs,
  };
  const queue: QueuedWork[] = [];
  let messageCount = 0;
  const enqueue = (work: SlackWork, delaySeconds = 0) => {
    messageCount += 1;
    queue.push({ id: `m-${messageCount}`, work, visibleAt: now + delaySeconds * 1_000, receives: 0 });
  };
  const observability = createObservability('SlackWork', () => undefined);
  const worker = createSlackWorkHandler(deps, {
    ...observability,
    requeue: async (work, delaySeconds) => enqueue(work, delaySeconds),
    ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
  });
  const ack = createSlackRequestHandler(
    {
      apps: worldApps,
      claimRequest: (key, expiresAt) => cards.claimOnce(key, now, expiresAt),
      enqueue: async (work) => enqueue(work),
      openRatingModal: async () => undefined,
      now: () => now,
    },
    createObservability('SlackRequests', () => undefined),
  );
  const context = (remainingMs = 60_000): Context => {
    const end = now + remainingMs;
    return {
      callbackWaitsForEmptyEventLoop: false,
      functionName: 'SlackWork',
      functionVersion: '$LATEST',
      invokedFunctionArn: 'arn:aws:lambda:local:000000000000:function:SlackWork',
      memoryLimitInMB: '256',
      awsRequestId: `virtual-${now}`,
      logGroupName: '/aws/lambda/SlackWork',
      logStreamName: 'virtual',
      getRemainingTimeInMillis: () => Math.max(0, end - now),
      done: () => undefined,
      fail: () => undefined,
      succeed: () => undefined,
    };
  };
  const pendingStream: DynamoDBRecord[] = [];
  const readStream = async () => {
    const fresh = (await table.readNewRecords()).Records;
    return [...pendingStream.splice(0), ...fresh];
  };
  const handleStream = async (records: DynamoDBRecord[], invocation = context()) => {
    if (records.length === 0) return { batchItemFailures: [] };
    const event: DynamoDBStreamEvent = { Records: records };
    const answer = await worker(event as never, invocation);
    // As Lambda does with a partial batch response: the failed records (and those after them) come again.
    const failed = new Set(answer.batchItemFailures.map((failure) => failure.itemIdentifier));
    const firstFailed = records.findIndex((record) => failed.has(record.dynamodb?.SequenceNumber ?? ''));
    if (firstFailed !== -1) pendingStream.push(...records.slice(firstFailed));
    return answer;
  };
  const toSqsEvent = (messages: QueuedWork[]): SQSEvent => ({
    Records: messages.map((message) => ({
      messageId: message.id,
      receiptHandle: `${message.id}#${message.receives}`,
      body: JSON.stringify(message.work),
      attributes: {
        ApproximateReceiveCount: String(message.receives),
        SentTimestamp: String(now),
        SenderId: 'local',
        ApproximateFirstReceiveTimestamp: String(now),
      },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:eu-west-1:000000000000:SlackWorkQueue',
      awsRegion: 'eu-west-1',
    })),
  });
  const handleQueue = async (messages?: QueuedWork[], invocation = context()) => {
    const batch = messages ?? queue.filter((message) => message.visibleAt <= now).slice(0, 10);
    if (batch.length === 0) return { batchItemFailures: [] };
    for (const message of batch) {
      message.receives += 1;
      const index = queue.indexOf(message);
      if (index !== -1) queue.splice(index, 1);
    }
    const answer = await worker(toSqsEvent(batch) as never, invocation);
    const failed = new Set(answer.batchItemFailures.map((failure) => failure.itemIdentifier));
    for (const message of batch) {
      // A failed message comes back after the queue's visibility timeout (60 s), at most 5 receives.
      if (failed.has(message.id) && message.receives < 5) queue.push({ ...message, visibleAt: now + 60_000 });
    }
    return answer;
  };
  const settle = async (maxRounds = 200) => {
    for (let round = 0; round < maxRounds; round += 1) {
      const records = await readStream();
      if (records.length > 0) {
        await handleStream(records);
        continue;
      }
      if (queue.some((message) => message.visibleAt <= now)) {
        await handleQueue();
        continue;
      }
      const next = Math.min(...queue.map((message) => message.visibleAt));
      if (!Number.isFinite(next)) return;
      now = next;
    }
    throw new Error('the Slack world did not settle');
  };
  return {
    now: () => now,
    advance: (ms) => {
      now += ms;
    },
    slack,
    failNext: (method, fault, count = 1) => {
      for (let index = 0; index < count; index += 1) planned.push({ method, fault });
    },
    setFault: (next) => {
      decide = next;
    },
    dynamo,
    runs,
    deps,
    table,
    recorded,
    queue,
    context,
    readStream,
    handleStream,
    handleQueue,
    settle,
    post: (kind, body, contentType, retryNum) =>
      ack(
        slackEvent('e1001', kind, body, contentType, {
          secret: WORLD_SIGNING,
          nowMs: now,
          ...(retryNum === undefined ? {} : { retryNum }),
        }) as never,
        context(3_000),
      ),
    triggeredRun: async (runId) => {
      await runs.queueRun(
        {
          runId,
          sessionId: `session-${runId}`,
          enterpriseId: 'E1001',
          query: `E1001-payment-5xx 告警：订单失败 (${runId})`,
          continueSession: false,
          trigger: {
            source: 'cloudwatch',
            incidentKey: `arn:aws:cloudwatch:eu-west-1:000000000000:alarm:${runId}`,
            eventId: `ev-${runId}`,
            title: `E1001-payment-5xx ${runId}`,
            startedAt: new Date(now).toISOString(),
          },
        },
        { executionArn: recorded.workflow.executionArnOf(runId) },
      );
    },
    cardsIn: ((channel = SLACK_CHANNEL) =>
      [...slack.messages.values()].filter(
        (message) => message.channel === channel && message.threadTs === null,
      )) as SlackWorld['cardsIn'],
    close: async () => {
      await slack.close();
      await table.drop();
      dynamo.destroy();
      if (handlerDynamo !== dynamo) handlerDynamo.destroy();
    },
  };
}

/** The text of a message's blocks, for `toContain`. */
export const blocksText = (message: { blocks: unknown[] } | undefined) => JSON.stringify(message?.blocks ?? null);
