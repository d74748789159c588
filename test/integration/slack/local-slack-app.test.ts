/**
 * The Slack app as `diagnosis serve` and `trigger --slack` run it (packages/cli/src/local/local-slack-app.ts), on
 * DynamoDB Local against a loopback Slack: a run the watched workflow starts is followed, its card posted in the alert
 * channel; when Slack answers the final update 429, the SlackWork handler puts the card's work back on the in-process
 * queue after the `Retry-After` — a timer, which `close()` clears and counts instead of waiting out.
 */
import { DEVELOPMENT_MASKING_SECRET } from '@diagnosis/core';
import { createDynamoRunStore } from '@diagnosis/core/store';
import { type LoopbackSlack, startLoopbackSlack } from '@diagnosis/devkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalSlackApp } from '../../../packages/cli/src/local/local-slack-app.ts';
import { createTestTable, localDynamoClient } from '../../support/dynamodb.ts';
import { outcomeOf } from '../../support/finished-runs.ts';
import { recordingWorkflow } from '../../support/recording-workflow.ts';
import { SLACK_CHANNEL, SLACK_TEAM } from '../../support/slack-requests.ts';

const TOKEN = 'xoxb-1001-0123456789-local-app';
const dynamo = localDynamoClient();
let table: Awaited<ReturnType<typeof createTestTable>>;
let slack: LoopbackSlack;

beforeAll(async () => {
  table = await createTestTable(dynamo);
  // Every chat.update is answered 429 (Retry-After: 60 s): the final update can only be put back.
  slack = await startLoopbackSlack({ token: TOKEN, limits: { 'chat.update': { calls: 0, windowMs: 60_000 } } });
});
afterAll(async () => {
  await slack.close();
  await table.drop();
  dynamo.destroy();
});

describe('startLocalSlackApp', () => {
  it('follows a started run’s card and puts a 429’d final update back on a timer that close() clears', async () => {
    const lines: string[] = [];
    const runs = createDynamoRunStore({ client: dynamo, tableName: table.tableName });
    const { workflow } = recordingWorkflow();
    const app = startLocalSlackApp({
      apps: [
        {
          id: 'e1001',
          enterpriseId: 'E1001',
          teamId: SLACK_TEAM,
          channels: [SLACK_CHANNEL],
          alertChannel: SLACK_CHANNEL,
          botTokenSecret: 'SlackE1001Bot',
          signingSecretSecret: 'SlackE1001Signing',
        },
      ],
      secretOf: (name) => (name === 'SlackE1001Bot' ? TOKEN : 'signing-secret-e1001-0123456789'),
      apiUrl: slack.apiUrl,
      timeoutMs: 5_000,
      dynamo,
      tableName: table.tableName,
      runs,
      workflow,
      maxQueryBytes: undefined,
      masking: { secret: DEVELOPMENT_MASKING_SECRET, mode: 'identifiers' },
      pastIncidentRetentionDays: 730,
      log: () => undefined,
      say: (line) => lines.push(line),
    });
    expect(app.served.map((served) => served.id)).toEqual(['e1001']);
    const runId = 'local-app-run-1';
    const request = {
      runId,
      sessionId: 'incident-session-local-app',
      enterpriseId: 'E1001',
      query: 'E1001-payment-5xx',
      continueSession: false,
    };
    await runs.queueRun(
      {
        ...request,
        trigger: {
          source: 'cloudwatch',
          incidentKey: 'arn:aws:cloudwatch:eu-west-1:000000000000:alarm:E1001-payment-5xx',
          eventId: 'ev-local-app',
          title: 'E1001-payment-5xx',
          startedAt: new Date().toISOString(),
        },
      },
      { executionArn: workflow.executionArnOf(runId) },
    );
    await app.watch(workflow).start(request);
    await app.settle();
    expect(slack.calls.filter((call) => call.method === 'chat.postMessage').map((call) => call.args.channel)).toEqual([
      SLACK_CHANNEL,
    ]);

    await runs.claimQueuedRun(runId, Date.now() + 600_000);
    await runs.completeRun(runId, outcomeOf('PUBLISHED'));
    await app.settle();
    const updates = slack.calls.filter((call) => call.method === 'chat.update');
    expect(updates.map((call) => call.status)).toEqual([429]);
    // The card's work waits out Slack's Retry-After on a timer; stopping drops it (and says how many).
    expect(await app.close()).toEqual({ dropped: 1 });
    expect(lines).toEqual([]);
  });
});
