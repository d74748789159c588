/**
 * `diagnosis trigger … --slack`: the Slack conversation of a triggered run on this machine, against a loopback Slack
 * Web API (`startLoopbackSlack`), through the deployed code — the SlackRequests handler for what Slack would send
 * (signed here with a made-up signing secret, as Slack signs), the SlackWork code for the work and the cards, the
 * official `@slack/web-api` client pointed at the loopback server — composed as `diagnosis serve` composes them
 * (local-slack-app.ts: the queue in this process; no table stream, so each run is read back every half second).
 * Every Slack call is printed on the terminal as it happens.
 */
import { randomBytes } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DEVELOPMENT_MASKING_SECRET,
  type DiagnosisWorkflow,
  printable as printableLine,
  type RunStore,
} from '@diagnosis/core';
import { PAST_INCIDENT_LIMITS } from '@diagnosis/core/store';
import { type LoopbackSlackMessage, lambdaContext, type SlackCall, startLoopbackSlack } from '@diagnosis/devkit';
import { createDynamoCardStore, signSlackRequest, slackRunId } from '@diagnosis/functions';
import { startLocalSlackApp } from './local-slack-app.ts';

/** A line for the terminal: control and bidirectional characters replaced, at most 240 characters. */
const printable = (text: string) => {
  const clean = printableLine(text).replaceAll('\n', ' ');
  return clean.length > 240 ? `${clean.slice(0, 239)}…` : clean;
};

const TEAM = 'T0LOCAL001';
const USER = 'U0LOCALME1';
const BOT = 'U0LOCALBOT';

/** What a Slack call looked like, in one line for the terminal: the method, where, and the card's first lines. */
function describeCall(call: SlackCall, message: LoopbackSlackMessage | null): string {
  const where = typeof call.args.channel === 'string' ? ` #${call.args.channel}` : '';
  const thread = typeof call.args.thread_ts === 'string' ? ` (thread ${call.args.thread_ts})` : '';
  if (call.status === 429) return `slack ▸ ${call.method}${where}: 429, Retry-After`;
  const blocks = (message?.blocks ?? []) as {
    type?: string;
    text?: { text?: string };
    elements?: { text?: string }[];
  }[];
  const lines = blocks
    .flatMap((block) =>
      block.type === 'context' ? (block.elements ?? []).map((element) => element.text ?? '') : [block.text?.text ?? ''],
    )
    .filter((line) => line !== '')
    .filter((_, index, all) => index < 2 || index === all.length - 1)
    .map((line) => line.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&').split('\n')[0] ?? '');
  const buttons = blocks.some((block) => block.type === 'actions')
    ? ' [Correct] [Partially] [Wrong] [Unhelpful] [Note…]'
    : '';
  return printable(
    `slack ▸ ${call.method}${where}${thread}${message === null ? '' : ` ts ${message.ts}`}: ${lines.join(' │ ')}${buttons}`,
  );
}

export interface LocalSlack {
  /** Keeps the run's card up to date until `stop`: call after the run started. */
  follow(runId: string): void;
  /** Stops following and brings every followed card up to date once more (the run's end). */
  settle(): Promise<void>;
  /** A person clicks a rating button on the run's card. */
  rate(runId: string, actionId: string): Promise<void>;
  /** A person mentions the app in the run's card's thread; returns the follow-up's run id, if one started. */
  askInThread(runId: string, question: string): Promise<string | null>;
  calls(): readonly SlackCall[];
  close(): Promise<void>;
}

export async function startLocalSlack(options: {
  enterpriseIds: readonly string[];
  client: DynamoDBClient;
  tableName: string;
  runs: RunStore;
  workflow: DiagnosisWorkflow;
  maskingSecret: string | undefined;
  print: (line: string) => void;
}): Promise<LocalSlack> {
  const token = `xoxb-local-${randomBytes(12).toString('hex')}`;
  const signingSecret = randomBytes(24).toString('hex');
  const slack = await startLoopbackSlack({
    token,
    onCall: (call, message) => options.print(describeCall(call, message)),
  });
  const enterprises = [...new Set(options.enterpriseIds)].slice(0, 20);
  const configs = enterprises.map((enterpriseId, index) => ({
    id: `local-${index}`,
    enterpriseId,
    teamId: TEAM,
    channels: [`C0LOCAL${String(index).padStart(3, '0')}`],
    alertChannel: `C0LOCAL${String(index).padStart(3, '0')}`,
    botTokenSecret: `SlackLocal${index}Bot`,
    signingSecretSecret: `SlackLocal${index}Signing`,
  }));
  const app = startLocalSlackApp({
    apps: configs,
    secretOf: (name) => (name.endsWith('Bot') ? token : signingSecret),
    apiUrl: slack.apiUrl,
    timeoutMs: 5_000,
    dynamo: options.client,
    tableName: options.tableName,
    runs: options.runs,
    workflow: options.workflow,
    maxQueryBytes: undefined,
    masking: { secret: options.maskingSecret ?? DEVELOPMENT_MASKING_SECRET, mode: 'identifiers' },
    pastIncidentRetentionDays: PAST_INCIDENT_LIMITS.retentionDays,
    log: () => undefined,
    say: options.print,
  });
  const cards = createDynamoCardStore({ client: options.client, tableName: options.tableName });
  /** Sends what Slack would send, signed as Slack signs it, through the SlackRequests handler; then its work. */
  const send = async (appId: string, kind: string, body: string, contentType: string) => {
    const timestamp = String(Math.floor(Date.now() / 1_000));
    await app.requests(
      {
        version: '2.0',
        routeKey: 'POST /slack/{appId}/{kind}',
        rawPath: `/slack/${appId}/${kind}`,
        rawQueryString: '',
        headers: {
          'content-type': contentType,
          'x-slack-request-timestamp': timestamp,
          'x-slack-signature': signSlackRequest(body, timestamp, signingSecret),
        },
        requestContext: { http: { method: 'POST', path: `/slack/${appId}/${kind}` } },
        pathParameters: { appId, kind },
        body,
        isBase64Encoded: false,
      },
      lambdaContext(3_000, 'SlackRequests'),
    );
    await app.settle();
  };
  const cardOf = async (runId: string) => {
    const card = await cards.getCard(runId);
    if (card === null || card.ts === null) throw new Error(`run ${runId} has no card`);
    return card;
  };
  return {
    follow: (runId) => {
      app.follow(runId);
    },
    settle: () => app.settle(),
    async rate(runId, actionId) {
      const card = await cardOf(runId);
      const payload = {
        type: 'block_actions',
        user: { id: USER, team_id: TEAM },
        team: { id: TEAM },
        channel: { id: card.channelId },
        container: { type: 'message', message_ts: card.ts, channel_id: card.channelId },
        trigger_id: `${Date.now()}.1.${randomBytes(8).toString('hex')}`,
        actions: [{ action_id: actionId, block_id: 'rating', value: runId, type: 'button' }],
      };
      options.print(printable(`you ▸ click ${actionId} on the card of ${runId}`));
      await send(
        card.appId,
        'interactivity',
        new URLSearchParams({ payload: JSON.stringify(payload) }).toString(),
        'application/x-www-form-urlencoded',
      );
    },
    async askInThread(runId, question) {
      const card = await cardOf(runId);
      const ts = `${Math.floor(Date.now() / 1_000)}.${String(Date.now() % 1_000_000).padStart(6, '0')}`;
      const eventId = `Ev0LOCAL${randomBytes(6).toString('hex')}`;
      options.print(printable(`you ▸ in the thread: @diagnosis ${question}`));
      await send(
        card.appId,
        'events',
        JSON.stringify({
          type: 'event_callback',
          team_id: TEAM,
          event_id: eventId,
          event: {
            type: 'app_mention',
            user: USER,
            text: `<@${BOT}> ${question}`,
            ts,
            thread_ts: card.threadTs ?? card.ts,
            channel: card.channelId,
          },
        }),
        'application/json',
      );
      const followUp = slackRunId(card.appId, eventId);
      // NOTE: a run Slack started is followed already (the app watches the workflow it starts runs in).
      return (await options.runs.getRun(followUp)) === null ? null : followUp;
    },
    calls: () => slack.calls,
    async close() {
      await app.close();
      await slack.close();
    },
  };
}
