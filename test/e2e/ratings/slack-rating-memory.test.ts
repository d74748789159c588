/**
 * A rating given in Slack changes the enterprise's memory exactly as one given through the API (#43 item 6): the
 * SlackWork function as its entry composes it (`loadSlackWork`, from the settings the deploy gives it), on DynamoDB
 * Local with the table's stream and a loopback Slack Web API; Slack's signed interactivity through the SlackRequests
 * handler, its work handed to SlackWork as SQS delivers it; the RunFeedback function through its entry; the past
 * incidents read by the `lookup_knowledge` adapter the Diagnose function's composition builds. A run rated CORRECT
 * through the API is returned by a later run's lookup; a WRONG click on its Slack card retracts it for good, so the
 * next lookup no longer returns it.
 */

import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { KnowledgeData } from '@diagnosis/core';
import { parseDiagnosisSettings } from '@diagnosis/core/config';
import { createDynamoPastIncidentStore, createDynamoRunStore, type RunStore } from '@diagnosis/core/store';
import { type LoopbackSlack, startLoopbackSlack } from '@diagnosis/devkit';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildDiagnosisDependencies } from '../../../functions/diagnose/dependencies.ts';
import { createObservability } from '../../../functions/lambda/observability.ts';
import { createDynamoCardStore } from '../../../functions/slack/dynamo-card-store.ts';
import { createSlackRequestHandler } from '../../../functions/slack/slack-request-handler.ts';
import { buildSlackRequestDeps } from '../../../functions/slack/slack-requests-setup.ts';
import { resolveSlackApps } from '../../../functions/slack/slack-settings.ts';
import type { SlackWork } from '../../../functions/slack/slack-work.ts';
import { createSlackWorkHandler } from '../../../functions/slack/slack-work-handler.ts';
import { loadSlackWork } from '../../../functions/slack/slack-work-setup.ts';
import { sqsEvent, sqsRecord } from '../../support/delivery-events.ts';
import { localDynamoClient, partitionItems } from '../../support/dynamodb.ts';
import { outcomeOf } from '../../support/finished-runs.ts';
import { httpEvent, lambdaContext } from '../../support/lambda-events.ts';
import { supportedDraft } from '../../support/run-fixtures.ts';
import {
  buttonClick,
  interactivityBody,
  SLACK_CHANNEL,
  SLACK_TEAM,
  SLACK_USER,
  slackEvent,
} from '../../support/slack-requests.ts';
import { createStreamTable, type StreamTable } from '../../support/table-stream.ts';

const TOKEN = 'xoxb-1001-0123456789-rating-memory';
const SIGNING = 'signing-secret-e1001-rating-memory-0123';
const RUN_ID = 'slack-rated-run-1';
const ALICE = { accountId: '111122223333', userArn: 'arn:aws:sts::111122223333:assumed-role/OpsE1001/alice' };
const APP = {
  id: 'e1001',
  enterpriseId: 'E1001',
  teamId: SLACK_TEAM,
  channels: [SLACK_CHANNEL],
  alertChannel: SLACK_CHANNEL,
  botTokenSecret: 'SlackE1001Bot',
  signingSecretSecret: 'SlackE1001Signing',
};
const secretOf = (name: string) => ({ SlackE1001Bot: TOKEN, SlackE1001Signing: SIGNING })[name];

const dynamo = localDynamoClient();
const documents = DynamoDBDocumentClient.from(dynamo);
let table: StreamTable;
let slack: LoopbackSlack;
let runs: RunStore;
let slackWork: ReturnType<typeof createSlackWorkHandler>;
let slackRequests: ReturnType<typeof createSlackRequestHandler>;
let runFeedback: (event: unknown, context: unknown) => Promise<unknown>;
let lookupKnowledge: (query: string) => Promise<string[]>;
/** The SlackWork queue's stand-in: each message becomes visible at its delay on the test's clock. */
const queued: { work: SlackWork; visibleAt: number }[] = [];
/** The clock of SlackWork's cards (paced posts, deferrals): moved by the test, never waited on. */
let now = Date.now();
const restore: Record<string, string | undefined> = {};

beforeAll(async () => {
  table = await createStreamTable(dynamo);
  slack = await startLoopbackSlack({ token: TOKEN });
  const tableSettings = { DIAGNOSIS_TABLE_NAME: table.tableName, DYNAMODB_ENDPOINT: inject('dynamodbEndpoint') };
  runs = createDynamoRunStore({ client: dynamo, tableName: table.tableName });

  // SlackWork, composed from the environment sst.config.ts gives it (the workflow is never started here).
  const { deps } = await loadSlackWork(
    {
      ...tableSettings,
      SLACK_APPS: JSON.stringify([APP]),
      SLACK_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/000000000000/SlackWorkQueue',
      SLACK_API_URL: slack.apiUrl,
      DIAGNOSIS_WORKFLOW_ARN: 'arn:aws:states:eu-west-1:000000000000:stateMachine:DiagnosisWorkflow',
      TENANT_MAX_OPEN_RUNS: '10',
      RETENTION_DAYS: '90',
      MASKING: 'identifiers',
    },
    secretOf,
  );
  // NOTE: SQS and the clock as the test controls them; everything else as the entry composes it.
  slackWork = createSlackWorkHandler(
    { ...deps, now: () => now },
    {
      ...createObservability('SlackWork', () => undefined),
      requeue: async (work, delaySeconds) => {
        queued.push({ work, visibleAt: now + delaySeconds * 1_000 });
      },
    },
  );
  // SlackRequests, built by its deployed setup's own builder, with the SlackWork queue as an array.
  slackRequests = createSlackRequestHandler(
    buildSlackRequestDeps({
      apps: resolveSlackApps([APP], secretOf),
      cards: createDynamoCardStore({ client: dynamo, tableName: table.tableName }),
      enqueue: async (work) => {
        queued.push({ work, visibleAt: now });
      },
      apiUrl: slack.apiUrl,
      timeoutMs: 2_000,
    }),
    createObservability('SlackRequests', () => undefined),
  );

  // RunFeedback through its entry, which reads its settings from the environment at cold start.
  const environment = { ...tableSettings, POWERTOOLS_DEV: 'true' };
  for (const [key, value] of Object.entries(environment)) {
    restore[key] = process.env[key];
    process.env[key] = value;
  }
  runFeedback = ((await import('../../../functions/post-run-feedback.ts')) as { handler: typeof runFeedback }).handler;

  // The lookup_knowledge adapter of the Diagnose function's composition (the model is never called here).
  const diagnosis = await buildDiagnosisDependencies(
    parseDiagnosisSettings({
      ...tableSettings,
      DIAGNOSIS_MODEL_BASE_URL: 'http://127.0.0.1:9/v1',
      DIAGNOSIS_MODEL_API_KEY: 'sk-rating-memory-0123456789',
    }),
    dynamo,
  );
  let calls = 0;
  lookupKnowledge = async (query) => {
    calls += 1;
    const result = await diagnosis.evidence.lookup_knowledge.execute({
      runId: `later-run-${calls}`,
      sessionId: `later-session-${calls}`,
      enterpriseId: 'E1001',
      toolCallId: `call_lookup_${calls}`,
      toolName: 'lookup_knowledge',
      input: { query, top_k: 5 },
      signal: new AbortController().signal,
    });
    return result.status === 'OK' ? (result.data as KnowledgeData).hits.map((hit) => hit.doc_id) : [];
  };
});

afterAll(async () => {
  for (const [key, value] of Object.entries(restore)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  await slack?.close();
  await table?.drop();
  dynamo.destroy();
});

/** The table stream's new records, through SlackWork as Lambda delivers them. */
async function drainStream() {
  const event = await table.readNewRecords();
  if (event.Records.length === 0) return [];
  return (await slackWork(event as never, lambdaContext(60_000, 'SlackWork'))).batchItemFailures;
}

/**
 * The queued work, through SlackWork as SQS delivers it, until the queue is empty: the clock is moved to each
 * message's visibility (a card deferred to its channel's next post slot comes back then).
 */
async function drainQueue() {
  const failures: unknown[] = [];
  for (let batch = 0; queued.length > 0 && batch < 10; batch += 1) {
    now = Math.max(now, ...queued.map((message) => message.visibleAt));
    const records = queued
      .splice(0)
      .map(({ work }, index) => sqsRecord(JSON.stringify(work), 1, `m-${batch}-${index}`));
    failures.push(
      ...(await slackWork(sqsEvent(...records) as never, lambdaContext(60_000, 'SlackWork'))).batchItemFailures,
    );
  }
  return failures;
}

describe('a rating given in Slack', () => {
  let cardTs = '';

  it('finds the published run’s card posted in the alert channel, with its rating buttons', async () => {
    await runs.queueRun({
      runId: RUN_ID,
      sessionId: 'incident-session-rating',
      enterpriseId: 'E1001',
      query: 'E1001-payment-5xx 告警：订单失败',
      continueSession: false,
      trigger: {
        source: 'cloudwatch',
        incidentKey: 'arn:aws:cloudwatch:eu-west-1:000000000000:alarm:E1001-payment-5xx',
        eventId: 'ev-rating-1',
        title: 'E1001-payment-5xx',
        startedAt: new Date().toISOString(),
      },
    });
    await runs.claimQueuedRun(RUN_ID, Date.now() + 600_000);
    await runs.completeRun(RUN_ID, outcomeOf('PUBLISHED', supportedDraft(['call_0', 'call_1'])));
    expect(await drainStream()).toEqual([]);
    expect(await drainQueue()).toEqual([]);
    const card = [...slack.messages.values()].find((message) => JSON.stringify(message.blocks).includes('rate_wrong'));
    if (card === undefined) throw new Error('no result card with rating buttons');
    cardTs = card.ts;
  });

  it('is preceded by a CORRECT rating through the API, which a later run’s lookup_knowledge returns', async () => {
    const response = (await runFeedback(
      httpEvent({ pathParameters: { runId: RUN_ID }, body: JSON.stringify({ verdict: 'CORRECT' }), iam: ALICE }),
      lambdaContext(5_000),
    )) as { statusCode: number };
    expect(response.statusCode).toBe(201);
    expect(await lookupKnowledge('payment-gateway 连接池')).toContain(`past-incident:${RUN_ID}`);
  });

  it('retracts the past incident when WRONG is clicked on the card, so a later lookup no longer returns it', async () => {
    const click = await slackRequests(
      slackEvent(
        'e1001',
        'interactivity',
        interactivityBody(buttonClick('rate_wrong', RUN_ID, cardTs)),
        'application/x-www-form-urlencoded',
        { secret: SIGNING, nowMs: Date.now() },
      ) as never,
      lambdaContext(3_000, 'SlackRequests'),
    );
    expect(click).toMatchObject({ statusCode: 200 });
    expect(queued).toHaveLength(1);
    expect(await drainQueue()).toEqual([]);
    const ratings = await partitionItems(documents, table.tableName, [`FEEDBACK#${RUN_ID}`]);
    expect(ratings).toContainEqual(
      expect.objectContaining({ verdict: 'WRONG', caller: `slack:${SLACK_TEAM}:${SLACK_USER}` }),
    );
    const memory = createDynamoPastIncidentStore({ client: dynamo, tableName: table.tableName });
    expect(await memory.get('E1001', RUN_ID, Date.now())).toBeNull();
    expect(await lookupKnowledge('payment-gateway 连接池')).not.toContain(`past-incident:${RUN_ID}`);
  });

  it('cannot be brought back by a later CORRECT rating, from Slack or the API', async () => {
    await slackRequests(
      slackEvent(
        'e1001',
        'interactivity',
        interactivityBody(buttonClick('rate_correct', RUN_ID, cardTs, { user: 'U0PERSON2' })),
        'application/x-www-form-urlencoded',
        { secret: SIGNING, nowMs: Date.now() },
      ) as never,
      lambdaContext(3_000, 'SlackRequests'),
    );
    expect(await drainQueue()).toEqual([]);
    expect(await lookupKnowledge('payment-gateway 连接池')).not.toContain(`past-incident:${RUN_ID}`);
  });
});
