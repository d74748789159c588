/**
 * The Slack conversation through the real handlers (the acknowledging SlackRequests handler and the SlackWork handler
 * on its queue and the table's stream) on DynamoDB Local, against a loopback Slack Web API called by the official
 * `@slack/web-api` client: an alarm's run gets its card, the card follows the run and is replaced by the result with
 * rating buttons; a click is stored masked and shown; a mention in the card's thread starts a follow-up in the same
 * session, answered in the thread; a plain reply starts nothing; a storm of progress stays within the throttle and
 * Slack's 429s are honoured; a retried event is one run. The runs themselves are not executed (a recording
 * workflow): their lifecycle is written with the run store's own writes, as the Diagnose function writes it.
 * NOTE: over 300 lines on purpose: one Slack conversation through the real handlers on DynamoDB Local and a loopback
 * Slack Web API, step after step on the same card.
 */
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DEVELOPMENT_MASKING_SECRET, emptyRunUsage, type ProgressSnapshot } from '@diagnosis/core';
import { createDynamoFeedbackStore, createDynamoRunStore, type RunStore } from '@diagnosis/core/store';
import { type LoopbackSlack, startLoopbackSlack } from '@diagnosis/devkit';
import type { DynamoDBStreamEvent, SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createObservability } from '../../../functions/lambda/observability.ts';
import { composeRating } from '../../../functions/ratings/rating-setup.ts';
import { createDynamoCardStore } from '../../../functions/slack/dynamo-card-store.ts';
import { createRatingModalOpener } from '../../../functions/slack/rating-modal.ts';
import { createSlackApi } from '../../../functions/slack/slack-api.ts';
import type { ConversationDeps } from '../../../functions/slack/slack-conversation.ts';
import { createSlackRequestHandler } from '../../../functions/slack/slack-request-handler.ts';
import { resolveSlackApps } from '../../../functions/slack/slack-settings.ts';
import type { SlackWork } from '../../../functions/slack/slack-work.ts';
import { createSlackWorkHandler } from '../../../functions/slack/slack-work-handler.ts';
import { buildPreviousTurn } from '../../../packages/core/src/service/build-previous-turn.ts';
import { blockKitViolations } from '../../support/block-kit.ts';
import { localDynamoClient, partitionItems } from '../../support/dynamodb.ts';
import { outcomeOf } from '../../support/finished-runs.ts';
import { lambdaContext } from '../../support/lambda-events.ts';
import { recordingWorkflow } from '../../support/recording-workflow.ts';
import { supportedDraft } from '../../support/run-fixtures.ts';
import {
  buttonClick,
  eventCallbackBody,
  interactivityBody,
  mentionEvent,
  SLACK_CHANNEL,
  SLACK_TEAM,
  SLACK_USER,
  slackEvent,
} from '../../support/slack-requests.ts';
import { createStreamTable, type StreamTable } from '../../support/table-stream.ts';

const TOKEN = 'xoxb-1001-0123456789-loopback';
const SIGNING = 'signing-secret-e1001-0123456789';
const START = Date.parse('2026-12-03T02:00:00.000Z');

const dynamo = localDynamoClient();
const documents = DynamoDBDocumentClient.from(dynamo);
let table: StreamTable;
let slack: LoopbackSlack;
let now = START;
let runs: RunStore;
const recorded = recordingWorkflow();
const queued: SlackWork[] = [];
const requeued: { work: SlackWork; delaySeconds: number }[] = [];
let ack: ReturnType<typeof createSlackRequestHandler>;
let worker: ReturnType<typeof createSlackWorkHandler>;
let deps: ConversationDeps;

const apps = resolveSlackApps(
  [
    {
      id: 'e1001',
      enterpriseId: 'E1001',
      teamId: SLACK_TEAM,
      channels: [SLACK_CHANNEL, 'C0E1001BB'],
      alertChannel: SLACK_CHANNEL,
      botTokenSecret: 'SlackE1001Bot',
      signingSecretSecret: 'SlackE1001Signing',
    },
  ],
  (name) => ({ SlackE1001Bot: TOKEN, SlackE1001Signing: SIGNING })[name],
);

beforeAll(async () => {
  table = await createStreamTable(dynamo);
  // chat.update: at most 6 a minute here, so the storm below meets Slack's 429 too.
  slack = await startLoopbackSlack({
    token: TOKEN,
    now: () => now,
    limits: { 'chat.update': { calls: 6, windowMs: 60_000 } },
  });
  runs = createDynamoRunStore({ client: dynamo, tableName: table.tableName, now: () => now });
  const cards = createDynamoCardStore({ client: dynamo, tableName: table.tableName });
  const api = createSlackApi({ token: TOKEN, timeoutMs: 5_000, apiUrl: slack.apiUrl });
  deps = {
    apps,
    slackOf: () => api,
    cards,
    runs,
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
    slackTimeoutMs: 5_000,
  };
  const observability = createObservability('SlackWork', () => undefined);
  worker = createSlackWorkHandler(deps, {
    ...observability,
    requeue: async (work, delaySeconds) => {
      requeued.push({ work, delaySeconds });
    },
  });
  ack = createSlackRequestHandler(
    {
      apps,
      claimRequest: (key, expiresAt) => cards.claimOnce(key, now, expiresAt),
      enqueue: async (work) => {
        queued.push(work);
      },
      openRatingModal: createRatingModalOpener(slack.apiUrl, 5_000),
      now: () => now,
    },
    createObservability('SlackRequests', () => undefined),
  );
});
afterAll(async () => {
  await slack.close();
  await table.drop();
  dynamo.destroy();
});

/** Everything the table's stream has since last time, through the SlackWork handler. */
async function drainStream() {
  const event: DynamoDBStreamEvent = await table.readNewRecords();
  if (event.Records.length === 0) return { batchItemFailures: [] };
  return worker(event as never, lambdaContext(60_000, 'SlackWork'));
}

/** The queued work, through the SlackWork handler as SQS delivers it. */
async function drainQueue() {
  const records = queued.splice(0).map((work, index) => ({
    messageId: `m-${now}-${index}`,
    receiptHandle: 'r',
    body: JSON.stringify(work),
    attributes: { ApproximateReceiveCount: '1' },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:eu-west-1:000000000000:SlackWork',
    awsRegion: 'eu-west-1',
  }));
  if (records.length === 0) return { batchItemFailures: [] };
  return worker({ Records: records } as unknown as SQSEvent as never, lambdaContext(60_000, 'SlackWork'));
}

async function post(kind: string, body: string, contentType: string) {
  const response = await ack(
    slackEvent('e1001', kind, body, contentType, { secret: SIGNING, nowMs: now }) as never,
    lambdaContext(3_000, 'SlackRequests'),
  );
  return response;
}

const progress = (rounds: number): ProgressSnapshot => ({
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

const texts = (message: { blocks: unknown[] }) => JSON.stringify(message.blocks);
const ALARM_RUN = 'alarm-run-1';
let cardTs = '';

describe('the Slack conversation', () => {
  it('posts a card when an alarm starts a run, updates it as the run works, and replaces it with the result', async () => {
    await runs.queueRun(
      {
        runId: ALARM_RUN,
        sessionId: 'incident-session-1',
        enterpriseId: 'E1001',
        query: 'E1001-payment-5xx 告警：订单失败 <!channel> 请看',
        continueSession: false,
        trigger: {
          source: 'cloudwatch',
          incidentKey: 'arn:aws:cloudwatch:eu-west-1:000000000000:alarm:E1001-payment-5xx',
          eventId: 'ev-1',
          title: 'E1001-payment-5xx <@U0ATTACKER>',
          startedAt: new Date(START).toISOString(),
        },
      },
      { executionArn: recorded.workflow.executionArnOf(ALARM_RUN) },
    );
    expect((await drainStream()).batchItemFailures).toEqual([]);
    const posts = slack.calls.filter((call) => call.method === 'chat.postMessage');
    expect(posts).toHaveLength(1);
    expect(posts[0]?.args.channel).toBe(SLACK_CHANNEL);
    const card = [...slack.messages.values()][0];
    if (card === undefined) throw new Error('no card');
    cardTs = card.ts;
    expect(texts(card)).toContain('AI-generated');
    // The alarm's text is escaped: no live mention, no live channel ping.
    expect(texts(card)).toContain('&lt;!channel&gt;');
    expect(texts(card)).toContain('&lt;@U0ATTACKER&gt;');
    expect(blockKitViolations(card as never)).toEqual([]);

    now += 1_000;
    await runs.claimQueuedRun(ALARM_RUN, now + 600_000);
    now += 6_000;
    await runs.updateProgress(ALARM_RUN, { usage: emptyRunUsage(), progress: progress(2) });
    expect((await drainStream()).batchItemFailures).toEqual([]);
    expect(card.updates).toBe(1);
    expect(texts(card)).toContain('Round 2');
    expect(texts(card)).toContain('query_logs');

    now += 6_000;
    await runs.completeRun(ALARM_RUN, outcomeOf('PUBLISHED', supportedDraft(['call_0', 'call_1'])));
    expect((await drainStream()).batchItemFailures).toEqual([]);
    expect(card.updates).toBe(2);
    expect(texts(card)).toContain('rate_correct');
    expect(texts(card)).toContain('rate_note');
    expect(texts(card)).toContain('Conclusion');
    expect(
      blockKitViolations({
        text: card.text,
        blocks: card.blocks.filter((block) => (block as { type: string }).type !== 'actions'),
      } as never),
    ).toEqual([]);
    const details = [...slack.messages.values()].filter((message) => message.threadTs === cardTs);
    expect(details).toHaveLength(1);
    expect(texts(details[0] as never)).toContain('Evidence');
  });

  it('records a rating click masked, with the Slack user as the rater, and shows it on the card', async () => {
    now += 10_000;
    const before = slack.calls.length;
    const response = await post(
      'interactivity',
      interactivityBody(buttonClick('rate_partially_correct', ALARM_RUN, cardTs)),
      'application/x-www-form-urlencoded',
    );
    expect(response.statusCode).toBe(200);
    expect((await drainQueue()).batchItemFailures).toEqual([]);
    const feedback = await partitionItems(documents, table.tableName, [`FEEDBACK#${ALARM_RUN}`]);
    expect(feedback).toHaveLength(1);
    expect(feedback[0]).toMatchObject({ verdict: 'PARTIALLY_CORRECT', caller: `slack:${SLACK_TEAM}:${SLACK_USER}` });
    const card = slack.messages.get(`${SLACK_CHANNEL}/${cardTs}`);
    expect(texts(card as never)).toContain(`Rated *Partially correct* by <@${SLACK_USER}>`);
    expect(slack.calls.slice(before).map((call) => call.method)).toEqual(['chat.update']);
  });

  it('opens the rating modal on Slack at once for a note click, with only our ids in its metadata', async () => {
    now += 1_000;
    const body = interactivityBody(buttonClick('rate_note', ALARM_RUN, cardTs));
    expect((await post('interactivity', body, 'application/x-www-form-urlencoded')).statusCode).toBe(200);
    const opened = slack.calls.filter((call) => call.method === 'views.open').at(-1);
    const view = opened?.args.view as { callback_id: string; private_metadata: string };
    expect(view.callback_id).toBe('rating_modal');
    expect(JSON.parse(view.private_metadata)).toEqual({
      channelId: SLACK_CHANNEL,
      messageTs: cardTs,
      runId: ALARM_RUN,
    });
    expect(queued).toEqual([]);
  });

  it('does nothing for a click whose button names another run', async () => {
    now += 1_000;
    const before = slack.calls.length;
    await post(
      'interactivity',
      interactivityBody(buttonClick('rate_wrong', 'some-other-run', cardTs, { user: 'U0PERSON2' })),
      'application/x-www-form-urlencoded',
    );
    expect((await drainQueue()).batchItemFailures).toEqual([]);
    expect(
      await partitionItems(documents, table.tableName, [`FEEDBACK#${ALARM_RUN}`, 'FEEDBACK#some-other-run']),
    ).toHaveLength(1);
    expect(slack.calls.length).toBe(before);
  });

  it("starts a follow-up in the card's session from a mention in its thread, answered in the thread", async () => {
    now += 1_000;
    const body = eventCallbackBody(
      mentionEvent('and the database?', '1796018100.000100', { threadTs: cardTs }),
      'Ev0FOLLOW01',
    );
    expect((await post('events', body, 'application/json')).statusCode).toBe(200);
    expect((await drainQueue()).batchItemFailures).toEqual([]);
    const payload = recorded.payloads.at(-1);
    expect(payload).toMatchObject({
      sessionId: 'incident-session-1',
      enterpriseId: 'E1001',
      continueSession: true,
      query: 'and the database?',
    });
    // The follow-up's previous turn is the first run's published result.
    const previous = await runs.findPreviousRun('E1001', 'incident-session-1');
    expect(previous?.runId).toBe(ALARM_RUN);
    expect(buildPreviousTurn(previous, { maxPreviousTurnBytes: 8_192 })?.run_id).toBe(ALARM_RUN);
    const followUpCard = [...slack.messages.values()].find((message) => texts(message).includes('Follow-up question'));
    expect(followUpCard?.threadTs).toBe(cardTs);
  });

  it('starts nothing for a plain reply between people in the thread', async () => {
    now += 1_000;
    const started = recorded.started.length;
    const calls = slack.calls.length;
    const body = eventCallbackBody(
      {
        type: 'message',
        user: 'U0PERSON2',
        text: 'I think it is the db',
        ts: '1796018200.000100',
        thread_ts: cardTs,
        channel: SLACK_CHANNEL,
      },
      'Ev0PLAIN001',
    );
    expect((await post('events', body, 'application/json')).statusCode).toBe(200);
    expect(queued).toEqual([]);
    expect(recorded.started.length).toBe(started);
    expect(slack.calls.length).toBe(calls);
  });

  it('starts one run for an event Slack retried', async () => {
    now += 1_000;
    const started = recorded.started.length;
    const body = eventCallbackBody(
      mentionEvent('why is checkout slow?', '1796018300.000100', { channel: 'C0E1001BB' }),
      'Ev0RETRY001',
    );
    await post('events', body, 'application/json');
    now += 1_000;
    await ack(
      slackEvent('e1001', 'events', body, 'application/json', { secret: SIGNING, nowMs: now, retryNum: 1 }) as never,
      lambdaContext(3_000, 'SlackRequests'),
    );
    expect(queued).toHaveLength(2);
    expect((await drainQueue()).batchItemFailures).toEqual([]);
    // NOTE: the run id is the event's, so the retry finds the same run (a second start of a QUEUED run's workflow
    // is harmless: Step Functions names the execution by the run id); one run, one card.
    expect(new Set(recorded.started).size).toBe(started + 1);
    const cards = [...slack.messages.values()].filter((message) => message.channel === 'C0E1001BB');
    expect(cards).toHaveLength(1);
  });

  it('keeps a storm of 50 progress records within the throttle and honours 429 Retry-After', async () => {
    await drainStream();
    const runId = 'storm-run-1';
    await runs.queueRun(
      {
        runId,
        sessionId: 'storm-session',
        enterpriseId: 'E1001',
        query: 'storm',
        continueSession: false,
        trigger: {
          source: 'cloudwatch',
          incidentKey: 'storm',
          eventId: 'ev-storm',
          title: 'storm',
          startedAt: new Date(now).toISOString(),
        },
      },
      { executionArn: recorded.workflow.executionArnOf(runId) },
    );
    await drainStream();
    // The card names its alarm and question, never its run id: found by the question it shows.
    const question = JSON.stringify('*Investigating*\nstorm\nstorm').slice(1, -1);
    const card = [...slack.messages.values()].find((message) => texts(message).includes(question));
    if (card === undefined) throw new Error('no storm card');
    await runs.claimQueuedRun(runId, now + 600_000);
    const updatesBefore = slack.calls.filter((call) => call.method === 'chat.update').length;
    const stormStart = now;
    for (let round = 1; round <= 50; round += 1) {
      now += 400;
      await runs.updateProgress(runId, { usage: emptyRunUsage(), progress: progress(round) });
      // The stream delivers in batches: every fifth record here.
      if (round % 5 === 0) expect((await drainStream()).batchItemFailures).toEqual([]);
    }
    const updates = slack.calls.filter((call) => call.method === 'chat.update' && call.at > stormStart);
    const elapsedMs = now - stormStart;
    // At most one update per 5 s per card, plus the first.
    expect(updates.length).toBeLessThanOrEqual(Math.floor(elapsedMs / 5_000) + 1);
    expect(updates.length).toBeGreaterThan(0);
    expect(updatesBefore).toBeGreaterThan(0);
    now += 1_000;
    await runs.completeRun(runId, outcomeOf('PUBLISHED'));
    expect((await drainStream()).batchItemFailures).toEqual([]);
    // The loopback allows 6 updates a minute: the final one met a 429 and went back on the queue with Retry-After.
    const limited = slack.calls.filter((call) => call.method === 'chat.update' && call.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    const back = requeued.find((entry) => entry.work.kind === 'card' && entry.work.runId === runId);
    expect(back?.delaySeconds).toBeGreaterThan(0);
    // After the Retry-After, the requeued work replaces the card with the result.
    now += (back?.delaySeconds ?? 0) * 1_000 + 60_000;
    queued.push(back?.work as SlackWork);
    expect((await drainQueue()).batchItemFailures).toEqual([]);
    expect(texts(card)).toContain('rate_correct');
  });
});
