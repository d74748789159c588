/**
 * Slack's requests to the app, built as Slack documents them: Events API callbacks (`event_callback` with an
 * `app_mention`), `url_verification`, interactivity (`application/x-www-form-urlencoded`, `payload=<JSON>` of a
 * `block_actions` or `view_submission`), a slash command (form fields), each signed with `v0=HMAC-SHA256(v0:{ts}:
 * {body})` and wrapped in an API Gateway HTTP API (v2) event for `POST /slack/{appId}/{kind}`.
 */
import { signSlackRequest } from '../../functions/slack/verify-slack-request.ts';
import { httpEvent } from './lambda-events.ts';

export const SLACK_TEAM = 'T0E1001AA';
export const SLACK_CHANNEL = 'C0E1001AA';
export const SLACK_BOT_USER = 'U0BOT0001';
export const SLACK_USER = 'U0PERSON1';

export interface SignedOptions {
  /** Unix seconds of the request; default: `nowMs`'s. */
  timestamp?: string;
  secret: string;
  nowMs: number;
  retryNum?: number;
  /** Replace the signature (a forged or missing one: `null`). */
  signature?: string | null;
  base64?: boolean;
}

/** The HTTP API event of a signed Slack request. */
export function slackEvent(appId: string, kind: string, body: string, contentType: string, options: SignedOptions) {
  const timestamp = options.timestamp ?? String(Math.floor(options.nowMs / 1_000));
  const signature =
    options.signature === undefined ? signSlackRequest(body, timestamp, options.secret) : options.signature;
  const headers: Record<string, string> = {
    'content-type': contentType,
    'x-slack-request-timestamp': timestamp,
    'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)',
  };
  if (signature !== null) headers['x-slack-signature'] = signature;
  if (options.retryNum !== undefined) {
    headers['x-slack-retry-num'] = String(options.retryNum);
    headers['x-slack-retry-reason'] = 'http_timeout';
  }
  return httpEvent({
    method: 'POST',
    path: `/slack/${appId}/${kind}`,
    iam: false,
    headers,
    body: options.base64 === true ? Buffer.from(body, 'utf8').toString('base64') : body,
    isBase64Encoded: options.base64 === true,
    pathParameters: { appId, kind },
  });
}

/** An Events API `event_callback` body with one event. */
export function eventCallbackBody(event: Record<string, unknown>, eventId: string, team = SLACK_TEAM): string {
  return JSON.stringify({
    token: 'deprecated-verification-token',
    team_id: team,
    api_app_id: 'A0APP0001',
    event,
    type: 'event_callback',
    event_id: eventId,
    event_time: 1_796_018_000,
    authorizations: [{ team_id: team, user_id: SLACK_BOT_USER, is_bot: true }],
    is_ext_shared_channel: false,
    event_context: '4-eyJldCI6ImFwcF9tZW50aW9uIn0',
  });
}

/** An `app_mention` event: `<@bot> text` in `channel`, in a thread when `threadTs` is given. */
export function mentionEvent(
  text: string,
  ts: string,
  options: { channel?: string; threadTs?: string; user?: string } = {},
) {
  return {
    type: 'app_mention',
    user: options.user ?? SLACK_USER,
    text: `<@${SLACK_BOT_USER}> ${text}`,
    ts,
    channel: options.channel ?? SLACK_CHANNEL,
    event_ts: ts,
    ...(options.threadTs === undefined ? {} : { thread_ts: options.threadTs }),
  };
}

/** Interactivity: `payload=<JSON>`, form-encoded as Slack sends it. */
export function interactivityBody(payload: Record<string, unknown>): string {
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}

/** A `block_actions` payload: one button clicked on the message `messageTs`. */
export function buttonClick(
  actionId: string,
  value: string,
  messageTs: string,
  options: { channel?: string; team?: string; user?: string; userTeam?: string } = {},
) {
  const team = options.team ?? SLACK_TEAM;
  const channel = options.channel ?? SLACK_CHANNEL;
  return {
    type: 'block_actions',
    // NOTE: in a Slack Connect channel the user's own workspace (`user.team_id`) is not the app's (`team.id`).
    user: { id: options.user ?? SLACK_USER, username: 'person', team_id: options.userTeam ?? team },
    api_app_id: 'A0APP0001',
    token: 'deprecated-verification-token',
    container: { type: 'message', message_ts: messageTs, channel_id: channel, is_ephemeral: false },
    trigger_id: '1234567890123.1234567890.abcdef0123456789abcdef0123456789',
    team: { id: team, domain: 'example' },
    channel: { id: channel, name: 'incidents' },
    message: { type: 'message', ts: messageTs, text: 'card', blocks: [] },
    response_url: `https://hooks.slack.com/actions/${team}/1/abc`,
    actions: [{ action_id: actionId, block_id: 'rating', value, type: 'button', action_ts: '1796018000.000100' }],
  };
}

/** A slash command's form body. */
export function commandBody(text: string, options: { channel?: string; team?: string; user?: string } = {}): string {
  return new URLSearchParams({
    token: 'deprecated-verification-token',
    team_id: options.team ?? SLACK_TEAM,
    team_domain: 'example',
    channel_id: options.channel ?? SLACK_CHANNEL,
    channel_name: 'incidents',
    user_id: options.user ?? SLACK_USER,
    user_name: 'person',
    command: '/diagnose',
    text,
    api_app_id: 'A0APP0001',
    response_url: 'https://hooks.slack.com/commands/T0E1001AA/1/abc',
    trigger_id: '1234567890123.1234567890.abcdef0123456789abcdef0123456789',
  }).toString();
}
