/**
 * `diagnosis serve` with a stage file that has Slack apps: the route `POST /slack/{appId}/{kind}` served by the real
 * SlackRequests handler (each app's signing secret from the environment, under the secret's own name), the work done
 * in the server's process by the real SlackWork handler (an in-process queue instead of SQS), and each run's card
 * kept up to date by reading the run back (there is no table stream locally) — against a loopback Slack Web API
 * (`SLACK_API_URL`). Slack's requests are built and signed as Slack builds and signs them, and sent over HTTP.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { type LoopbackSlack, startLoopbackSlack } from '@diagnosis/devkit';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { slackRunId } from '../../../functions/slack/slack-conversation.ts';
import { signSlackRequest } from '../../../functions/slack/verify-slack-request.ts';
import { runBin, type ServingBin, startServeBin } from '../../support/cli-process.ts';
import {
  buttonClick,
  eventCallbackBody,
  interactivityBody,
  mentionEvent,
  SLACK_CHANNEL,
  SLACK_TEAM,
  SLACK_USER,
} from '../../support/slack-requests.ts';

const endpoint = inject('dynamodbEndpoint');
const tableName = `serve-slack-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
const TOKEN = 'xoxb-1001-0123456789-serve-loopback';
const SIGNING = 'signing-secret-e1001-serve-0123456789';
const QUESTION = 'E1001 的订单从 14:05 开始大量失败，为什么？';
let dataDir: string;
let slack: LoopbackSlack;
let serve: ServingBin;
let url = '';
const documents = DynamoDBDocumentClient.from(
  new DynamoDBClient({ endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }),
);

/** Sends what Slack sends: the raw body, signed with `secret` (`v0=HMAC-SHA256(v0:{ts}:{body})`), over HTTP. */
async function sendSlack(
  appId: string,
  kind: string,
  body: string,
  contentType: string,
  options: { secret?: string; signature?: string } = {},
) {
  const timestamp = String(Math.floor(Date.now() / 1_000));
  const started = performance.now();
  const response = await fetch(`${url}/slack/${appId}/${kind}`, {
    method: 'POST',
    headers: {
      'content-type': contentType,
      'x-slack-request-timestamp': timestamp,
      'x-slack-signature': options.signature ?? signSlackRequest(body, timestamp, options.secret ?? SIGNING),
      'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)',
    },
    body,
  });
  const text = await response.text();
  return {
    status: response.status,
    ms: performance.now() - started,
    json: text === '' ? null : (JSON.parse(text) as { message?: string; error?: { code?: string } }),
  };
}

async function tableItems(): Promise<Record<string, unknown>[]> {
  return (await documents.send(new ScanCommand({ TableName: tableName }))).Items ?? [];
}

/** The loopback Slack's messages in the app's channel (top-level and thread replies). */
const messagesIn = (channel: string) => [...slack.messages.values()].filter((message) => message.channel === channel);
const hasButtons = (blocks: unknown[]) => JSON.stringify(blocks).includes('rate_correct');

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'diagnosis-serve-slack-'));
  slack = await startLoopbackSlack({ token: TOKEN });
  const stageFile = join(dataDir, 'slack-stage.json');
  writeFileSync(
    stageFile,
    JSON.stringify({
      triggers: [],
      slack: {
        apps: [
          {
            id: 'e1001',
            enterpriseId: 'E1001',
            teamId: SLACK_TEAM,
            channels: [SLACK_CHANNEL],
            botTokenSecret: 'SlackServeE1001Bot',
            signingSecretSecret: 'SlackServeE1001Signing',
          },
          {
            id: 'e2002',
            enterpriseId: 'E2002',
            teamId: 'T0E2002AA',
            channels: ['C0E2002AA'],
            botTokenSecret: 'SlackServeE2002Bot',
            signingSecretSecret: 'SlackServeE2002Signing',
          },
        ],
      },
    }),
  );
  serve = await startServeBin(['--scripted-model', '--port', '0', '--stage', stageFile], {
    DIAGNOSIS_LOCAL_DATA: dataDir,
    DYNAMODB_ENDPOINT: endpoint,
    DIAGNOSIS_TABLE_NAME: tableName,
    SLACK_API_URL: slack.apiUrl,
    // e1001's secrets under their SST names; e2002's are unset.
    SlackServeE1001Bot: TOKEN,
    SlackServeE1001Signing: SIGNING,
  });
  url = serve.url;
});

afterAll(async () => {
  // Ctrl-C: no new requests, the Slack work in flight and the runs end, the cards settle; then exit 0.
  if (serve !== undefined) expect(await serve.stop()).toBe(0);
  await slack?.close();
  documents.destroy();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('diagnosis serve with Slack apps (a child process, Slack requests over HTTP)', () => {
  it('lists the Slack route and says, per app, whether it is served or refused and why', () => {
    const stderr = serve.stderr();
    expect(stderr).toMatch(/ {2}POST \/slack\/\{appId\}\/\{kind\} +SlackRequests/);
    expect(stderr).toContain('slack app e1001 (E1001, 1 channel): served; Web API at http://127.0.0.1:');
    expect(stderr).toContain(
      'slack app e2002 (E2002, 1 channel): secret SlackServeE2002Bot is unset: refuses every request (set SlackServeE2002Bot and SlackServeE2002Signing in the environment or .env)',
    );
  });

  it('answers a mention within 3 s, starts the run, posts its card and replaces it with the result; records a click', async () => {
    const eventId = 'Ev0SERVE0001';
    const mentionTs = `${Math.floor(Date.now() / 1_000)}.000100`;
    const mention = await sendSlack(
      'e1001',
      'events',
      eventCallbackBody(mentionEvent(QUESTION, mentionTs), eventId),
      'application/json',
    );
    expect(mention.status).toBe(200);
    expect(mention.ms).toBeLessThan(3_000);
    await serve.stderrMatches(/POST \/slack\/e1001\/events → 200 SlackRequests/);

    const runId = slackRunId('e1001', eventId);
    // The card: posted in the channel, then replaced by the result with its buttons; the details in its thread.
    const card = await vi.waitFor(
      () => {
        const found = messagesIn(SLACK_CHANNEL).find(
          (message) => message.threadTs === null && hasButtons(message.blocks),
        );
        const details = messagesIn(SLACK_CHANNEL).some(
          (message) => found !== undefined && message.threadTs === found.ts,
        );
        if (found === undefined || !details) {
          throw new Error(`no result card and details yet: ${slack.calls.map((call) => call.method).join(', ')}`);
        }
        return found;
      },
      { timeout: 40_000, interval: 100 },
    );
    expect(card.updates).toBeGreaterThanOrEqual(1);
    expect(JSON.stringify(card.blocks)).toContain(runId);
    const run = await fetch(`${url}/runs/${runId}`).then((response) => response.json());
    expect(run).toMatchObject({ runId, enterpriseId: 'E1001', status: 'PUBLISHED', query: QUESTION });

    const click = await sendSlack(
      'e1001',
      'interactivity',
      interactivityBody(buttonClick('rate_correct', runId, card.ts)),
      'application/x-www-form-urlencoded',
    );
    expect(click.status).toBe(200);
    expect(click.ms).toBeLessThan(3_000);
    // The rating is recorded through the API's own path, the rater being the Slack user; the card says so.
    await vi.waitFor(
      async () => {
        const rated = JSON.stringify(await fetch(`${url}/runs/${runId}`).then((response) => response.json()));
        expect(rated).toContain(`slack:${SLACK_TEAM}:${SLACK_USER}`);
        expect(JSON.stringify(card.blocks)).toContain(`Rated *Correct* by <@${SLACK_USER}> · thank you`);
      },
      { timeout: 10_000, interval: 100 },
    );
  }, 60_000);

  it('refuses a bad signature with 401 SLACK_BAD_SIGNATURE and writes nothing', async () => {
    const before = await tableItems();
    const calls = slack.calls.length;
    const forged = await sendSlack(
      'e1001',
      'events',
      eventCallbackBody(mentionEvent(QUESTION, `${Math.floor(Date.now() / 1_000)}.000200`), 'Ev0SERVE0002'),
      'application/json',
      { secret: 'not-the-signing-secret-0123456789' },
    );
    expect(forged.status).toBe(401);
    expect(forged.json?.error?.code).toBe('SLACK_BAD_SIGNATURE');
    expect((await tableItems()).length).toBe(before.length);
    expect(slack.calls.length).toBe(calls);
  });

  it('answers an unknown app as the handler does: 404 SLACK_UNKNOWN_ROUTE', async () => {
    const unknown = await sendSlack('e9999', 'events', '{}', 'application/json');
    expect(unknown.status).toBe(404);
    expect(unknown.json?.error?.code).toBe('SLACK_UNKNOWN_ROUTE');
  });

  it('refuses every request of an app whose secrets are unset, as a function that cannot start, writing nothing', async () => {
    const before = await tableItems();
    const from = serve.stderr().length;
    const refused = await sendSlack(
      'e2002',
      'events',
      eventCallbackBody(
        mentionEvent(QUESTION, `${Math.floor(Date.now() / 1_000)}.000300`, { channel: 'C0E2002AA' }),
        'Ev0SERVE0003',
        'T0E2002AA',
      ),
      'application/json',
    );
    expect(refused).toMatchObject({ status: 500, json: { message: 'Internal Server Error' } });
    await serve.stderrMatches(/SlackRequests failed: SlackConfigError \(answered 500\)/, from);
    expect((await tableItems()).length).toBe(before.length);
  });
});

describe('diagnosis serve with Slack apps: refusals before anything starts', () => {
  const refusal = (env: Record<string, string>) =>
    runBin(['serve', '--scripted-model', '--port', '0', '--stage', join(dataDir, 'slack-stage.json')], {
      DIAGNOSIS_LOCAL_DATA: dataDir,
      DYNAMODB_ENDPOINT: endpoint,
      ...env,
    });

  it('refuses a misspelt Slack secret variable with the secret meant (exit 78), never its value', async () => {
    const refused = await refusal({ SlackServeE1001Bot: TOKEN, SlackServeE1001Signin: SIGNING });
    expect(refused.code).toBe(78);
    expect(refused.stderr).toContain(
      'unknown setting: SlackServeE1001Signin in the environment (did you mean SlackServeE1001Signing?)',
    );
    expect(refused.stderr).not.toContain(SIGNING);
  });

  it('refuses a SLACK_API_URL that is not a Web API base (exit 78); a foreign SLACK_ name is left alone', async () => {
    const refused = await refusal({ SLACK_API_URL: 'http://127.0.0.1:9/not-api', SLACK_BOT_TOKEN: 'xoxb-other-tool' });
    expect(refused.code).toBe(78);
    expect(refused.stderr).toContain('invalid settings: SLACK_API_URL');
    expect(refused.stderr).not.toContain('SLACK_BOT_TOKEN');
  });
});
