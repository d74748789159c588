// NOTE: over 300 lines on purpose: the acknowledging Slack handler: signature, retries, dedupe and queueing of each
// request kind, over one set of signed fixtures.
import { describe, expect, it, vi } from 'vitest';
import { createObservability } from '../../../../functions/lambda/observability.ts';
import { createSlackRequestHandler, type SlackRequestDeps } from '../../../../functions/slack/slack-request-handler.ts';
import { resolveSlackApps } from '../../../../functions/slack/slack-settings.ts';
import type { SlackWork } from '../../../../functions/slack/slack-work.ts';
import { SLACK_MAX_BODY_BYTES } from '../../../../functions/slack/verify-slack-request.ts';
import { lambdaContext } from '../../../support/lambda-events.ts';
import {
  buttonClick,
  commandBody,
  eventCallbackBody,
  interactivityBody,
  mentionEvent,
  SLACK_CHANNEL,
  SLACK_TEAM,
  slackEvent,
} from '../../../support/slack-requests.ts';

const NOW = Date.parse('2026-12-03T02:00:00.000Z');
const SECRET = 'signing-secret-e1001-0123456789';
const OTHER_SECRET = 'signing-secret-e2002-0123456789';
const apps = resolveSlackApps(
  [
    {
      id: 'e1001',
      enterpriseId: 'E1001',
      teamId: SLACK_TEAM,
      channels: [SLACK_CHANNEL],
      botTokenSecret: 'SlackE1001Bot',
      signingSecretSecret: 'SlackE1001Signing',
    },
    {
      id: 'e2002',
      enterpriseId: 'E2002',
      teamId: 'T0E2002BB',
      channels: ['C0E2002BB'],
      botTokenSecret: 'SlackE2002Bot',
      signingSecretSecret: 'SlackE2002Signing',
    },
  ],
  (name) =>
    ({
      SlackE1001Bot: 'xoxb-1001-0123456789-abcdef',
      SlackE1001Signing: SECRET,
      SlackE2002Bot: 'xoxb-2002-0123456789-abcdef',
      SlackE2002Signing: OTHER_SECRET,
    })[name],
);

function world(overrides: Partial<SlackRequestDeps> = {}) {
  const claims = new Set<string>();
  const queued: SlackWork[] = [];
  const modals: unknown[] = [];
  const deps: SlackRequestDeps = {
    apps,
    async claimRequest(key) {
      if (claims.has(key)) return false;
      claims.add(key);
      return true;
    },
    async enqueue(work) {
      queued.push(work);
    },
    async openRatingModal(app, request) {
      modals.push({ appId: app.id, ...request });
    },
    now: () => NOW,
    ...overrides,
  };
  const handler = createSlackRequestHandler(
    deps,
    createObservability('SlackRequests', () => undefined),
  );
  const send = async (event: unknown) => {
    const response = await handler(event as never, lambdaContext(3_000, 'SlackRequests'));
    return { ...response, json: response.body ? JSON.parse(response.body) : undefined };
  };
  return { send, claims, queued, modals };
}

const signed = { secret: SECRET, nowMs: NOW };
const mention = (text = 'why are payments failing?', extra: Parameters<typeof mentionEvent>[2] = {}) =>
  slackEvent(
    'e1001',
    'events',
    eventCallbackBody(mentionEvent(text, '1796018000.000100', extra), 'Ev0MENTION1'),
    'application/json',
    signed,
  );

describe('createSlackRequestHandler', () => {
  it('answers url_verification with its challenge once verified', async () => {
    const { send, queued } = world();
    const body = JSON.stringify({ token: 't', challenge: 'ch4ll3nge', type: 'url_verification' });
    const response = await send(slackEvent('e1001', 'events', body, 'application/json', signed));
    expect(response.statusCode).toBe(200);
    expect(response.json).toEqual({ challenge: 'ch4ll3nge' });
    expect(queued).toEqual([]);
  });

  it('queues a mention in a mapped channel with Slack ids only, answered 200 with nothing', async () => {
    const { send, queued } = world();
    const response = await send(mention());
    expect(response.statusCode).toBe(200);
    expect(response.body).toBeUndefined();
    expect(queued).toEqual([
      {
        kind: 'mention',
        appId: 'e1001',
        teamId: SLACK_TEAM,
        channelId: SLACK_CHANNEL,
        userId: 'U0PERSON1',
        eventId: 'Ev0MENTION1',
        ts: '1796018000.000100',
        threadTs: null,
        text: 'why are payments failing?',
      },
    ]);
  });

  it('accepts a base64 body (API Gateway treats form bodies as binary sometimes)', async () => {
    const { send, queued } = world();
    const body = eventCallbackBody(mentionEvent('q', '1796018000.000100'), 'Ev0MENTION1');
    const response = await send(slackEvent('e1001', 'events', body, 'application/json', { ...signed, base64: true }));
    expect(response.statusCode).toBe(200);
    expect(queued).toHaveLength(1);
  });

  it.each([
    ['a bot message', { ...mentionEvent('q', '1796018000.000100'), bot_id: 'B0OTHER' }, 'BOT_MESSAGE'],
    ['a message with a subtype', { ...mentionEvent('q', '1796018000.000100'), subtype: 'bot_message' }, 'BOT_MESSAGE'],
    [
      'a plain message in a thread',
      {
        type: 'message',
        user: 'U0PERSON1',
        text: 'and the db?',
        ts: '1796018000.000200',
        thread_ts: '1796018000.000100',
        channel: SLACK_CHANNEL,
      },
      'NOT_A_MENTION',
    ],
    [
      'a mention in an unmapped channel',
      mentionEvent('q', '1796018000.000100', { channel: 'C0E2002BB' }),
      'UNMAPPED_CHANNEL',
    ],
  ] as [string, Record<string, unknown>, string][])('answers %s with nothing and queues nothing', async (_, event) => {
    const { send, queued } = world();
    const response = await send(
      slackEvent('e1001', 'events', eventCallbackBody(event, 'Ev0X00001'), 'application/json', signed),
    );
    expect(response.statusCode).toBe(200);
    expect(response.body).toBeUndefined();
    expect(queued).toEqual([]);
  });

  it('ignores a mention from another workspace, even in a channel id the app maps', async () => {
    const { send, queued } = world();
    const body = eventCallbackBody(mentionEvent('q', '1796018000.000100'), 'Ev0X00001', 'T0OTHER01');
    expect((await send(slackEvent('e1001', 'events', body, 'application/json', signed))).statusCode).toBe(200);
    expect(queued).toEqual([]);
  });

  it("refuses a request signed with another app's secret (the path names the app, and so the secret)", async () => {
    const { send, queued, claims } = world();
    const body = eventCallbackBody(mentionEvent('q', '1796018000.000100'), 'Ev0X00001');
    const response = await send(
      slackEvent('e1001', 'events', body, 'application/json', { secret: OTHER_SECRET, nowMs: NOW }),
    );
    expect(response.statusCode).toBe(401);
    expect(response.json.error.code).toBe('SLACK_BAD_SIGNATURE');
    expect(queued).toEqual([]);
    expect(claims.size).toBe(0);
  });

  it.each([
    ['unsigned', { signature: null }, 401, 'SLACK_SIGNATURE_MISSING'],
    ['badly signed', { signature: `v0=${'a'.repeat(64)}` }, 401, 'SLACK_BAD_SIGNATURE'],
    ['stale', { timestamp: String(Math.floor(NOW / 1_000) - 301) }, 401, 'SLACK_STALE'],
    ['from the future', { timestamp: String(Math.floor(NOW / 1_000) + 61) }, 401, 'SLACK_FROM_THE_FUTURE'],
  ])('refuses an %s request with nothing written', async (_, override, status, code) => {
    const { send, queued, claims } = world();
    const body = eventCallbackBody(mentionEvent('q', '1796018000.000100'), 'Ev0X00001');
    const response = await send(slackEvent('e1001', 'events', body, 'application/json', { ...signed, ...override }));
    expect(response.statusCode).toBe(status);
    expect(response.json.error.code).toBe(code);
    expect(queued).toEqual([]);
    expect(claims.size).toBe(0);
  });

  it('refuses an oversized body (text or base64) before verifying it, nothing written', async () => {
    const { send, queued, claims } = world();
    const body = 'a'.repeat(SLACK_MAX_BODY_BYTES + 1);
    for (const base64 of [false, true]) {
      const response = await send(slackEvent('e1001', 'events', body, 'application/json', { ...signed, base64 }));
      expect(response.statusCode).toBe(413);
      expect(response.json.error.code).toBe('SLACK_BODY_TOO_LARGE');
    }
    expect(queued).toEqual([]);
    expect(claims.size).toBe(0);
  });

  it('refuses a body over the limit in UTF-8 bytes (not characters) before decoding it', async () => {
    const { send, queued, claims } = world();
    // 87,382 characters of 3 bytes each: under the limit in characters, over it in bytes.
    const body = '€'.repeat(Math.floor(SLACK_MAX_BODY_BYTES / 3) + 1);
    expect(body.length).toBeLessThan(SLACK_MAX_BODY_BYTES);
    const event = slackEvent('e1001', 'events', body, 'application/json', signed);
    const from = vi.spyOn(Buffer, 'from');
    try {
      const response = await send(event);
      expect(response.statusCode).toBe(413);
      expect(response.json.error.code).toBe('SLACK_BODY_TOO_LARGE');
      // Nothing of that size was decoded into bytes.
      const decoded = from.mock.calls.filter(
        ([value]) => typeof value === 'string' && Buffer.byteLength(value) > SLACK_MAX_BODY_BYTES,
      );
      expect(decoded).toEqual([]);
    } finally {
      from.mockRestore();
    }
    expect(queued).toEqual([]);
    expect(claims.size).toBe(0);
  });

  it('refuses a replay of the very same signed request', async () => {
    const { send, queued } = world();
    const event = mention();
    expect((await send(event)).statusCode).toBe(200);
    const again = await send(event);
    expect(again.statusCode).toBe(401);
    expect(again.json.error.code).toBe('SLACK_REPLAYED');
    expect(queued).toHaveLength(1);
  });

  it('queues a retried event again (new signature): the worker dedupes it by event id', async () => {
    const { send, queued } = world();
    const body = eventCallbackBody(mentionEvent('q', '1796018000.000100'), 'Ev0MENTION1');
    await send(slackEvent('e1001', 'events', body, 'application/json', signed));
    await send(slackEvent('e1001', 'events', body, 'application/json', { ...signed, nowMs: NOW + 1_000, retryNum: 1 }));
    expect(queued.map((work) => (work.kind === 'mention' ? work.eventId : null))).toEqual([
      'Ev0MENTION1',
      'Ev0MENTION1',
    ]);
  });

  it('answers 404 for an app or a route the stage does not have, before verifying', async () => {
    const { send } = world();
    const unknownApp = await send(slackEvent('e9999', 'events', '{}', 'application/json', signed));
    expect([unknownApp.statusCode, unknownApp.json.error.code]).toEqual([404, 'SLACK_UNKNOWN_ROUTE']);
    const unknownKind = await send(slackEvent('e1001', 'other', '{}', 'application/json', signed));
    expect([unknownKind.statusCode, unknownKind.json.error.code]).toEqual([404, 'SLACK_UNKNOWN_ROUTE']);
    const inherited = await send(slackEvent('constructor', 'events', '{}', 'application/json', signed));
    expect(inherited.statusCode).toBe(404);
  });

  it('answers 405 for another method and 400 for a body that is not JSON', async () => {
    const { send } = world();
    const get = { ...mention(), requestContext: { ...mention().requestContext, http: { method: 'GET' } } };
    expect((await send(get)).statusCode).toBe(405);
    const response = await send(slackEvent('e1001', 'events', 'not json', 'application/json', signed));
    expect([response.statusCode, response.json.error.code]).toEqual([400, 'SLACK_MALFORMED_BODY']);
  });

  it('queues a rating click bound to the card the button was on; the button value is only a claim', async () => {
    const { send, queued } = world();
    const body = interactivityBody(buttonClick('rate_wrong', 'run-1', '1796018000.000100'));
    const response = await send(
      slackEvent('e1001', 'interactivity', body, 'application/x-www-form-urlencoded', signed),
    );
    expect(response.statusCode).toBe(200);
    expect(queued).toEqual([
      {
        kind: 'rating',
        appId: 'e1001',
        teamId: SLACK_TEAM,
        channelId: SLACK_CHANNEL,
        messageTs: '1796018000.000100',
        userId: 'U0PERSON1',
        userTeamId: SLACK_TEAM,
        verdict: 'WRONG',
        claimedRunId: 'run-1',
        rootCause: null,
        note: null,
      },
    ]);
  });

  it("queues a Slack Connect guest's click with the guest's own workspace, bound to the app's channel", async () => {
    const { send, queued } = world();
    const click = buttonClick('rate_correct', 'run-1', '1796018000.000100', { userTeam: 'T0GUEST01' });
    await send(
      slackEvent('e1001', 'interactivity', interactivityBody(click), 'application/x-www-form-urlencoded', signed),
    );
    expect(queued).toMatchObject([{ kind: 'rating', teamId: SLACK_TEAM, userTeamId: 'T0GUEST01' }]);
  });

  it('opens the rating modal at once for the note button, queuing nothing', async () => {
    const { send, queued, modals } = world();
    const body = interactivityBody(buttonClick('rate_note', 'run-1', '1796018000.000100'));
    expect(
      (await send(slackEvent('e1001', 'interactivity', body, 'application/x-www-form-urlencoded', signed))).statusCode,
    ).toBe(200);
    expect(queued).toEqual([]);
    expect(modals).toEqual([
      {
        appId: 'e1001',
        triggerId: '1234567890123.1234567890.abcdef0123456789abcdef0123456789',
        channelId: SLACK_CHANNEL,
        messageTs: '1796018000.000100',
        claimedRunId: 'run-1',
      },
    ]);
  });

  it.each([
    ['an unknown action', buttonClick('rate_everything', 'run-1', '1796018000.000100')],
    [
      'a click in an unmapped channel',
      buttonClick('rate_wrong', 'run-1', '1796018000.000100', { channel: 'C0E2002BB' }),
    ],
    ['a click from another workspace', buttonClick('rate_wrong', 'run-1', '1796018000.000100', { team: 'T0E2002BB' })],
    ['an inherited action name', buttonClick('toString', 'run-1', '1796018000.000100')],
  ])('does nothing for %s', async (_, payload) => {
    const { send, queued, modals } = world();
    const body = interactivityBody(payload);
    expect(
      (await send(slackEvent('e1001', 'interactivity', body, 'application/x-www-form-urlencoded', signed))).statusCode,
    ).toBe(200);
    expect(queued).toEqual([]);
    expect(modals).toEqual([]);
  });

  it('refuses an interactivity body without exactly one payload field', async () => {
    const { send } = world();
    for (const body of ['x=1', 'payload=%7B%7D&payload=%7B%7D', 'payload=not-json']) {
      const response = await send(
        slackEvent('e1001', 'interactivity', body, 'application/x-www-form-urlencoded', signed),
      );
      expect([response.statusCode, response.json.error.code]).toEqual([400, 'SLACK_MALFORMED_BODY']);
    }
  });

  it('queues /diagnose in a mapped channel and answers the person in words', async () => {
    const { send, queued } = world();
    const response = await send(
      slackEvent(
        'e1001',
        'commands',
        commandBody('  checkout errors since 02:00  '),
        'application/x-www-form-urlencoded',
        signed,
      ),
    );
    expect(response.statusCode).toBe(200);
    expect(response.json).toEqual({ response_type: 'ephemeral', text: 'Starting a diagnosis for this channel…' });
    expect(queued).toMatchObject([{ kind: 'command', channelId: SLACK_CHANNEL, text: 'checkout errors since 02:00' }]);
  });

  it('answers /diagnose in an unmapped channel with nothing', async () => {
    const { send, queued } = world();
    const response = await send(
      slackEvent(
        'e1001',
        'commands',
        commandBody('q', { channel: 'C0E2002BB' }),
        'application/x-www-form-urlencoded',
        signed,
      ),
    );
    expect(response.statusCode).toBe(200);
    expect(response.body).toBeUndefined();
    expect(queued).toEqual([]);
  });

  it('answers 500 when the queue fails, so Slack retries; the error class only', async () => {
    const { send } = world({
      enqueue: async () => {
        throw new Error('secret detail');
      },
    });
    const response = await send(mention());
    expect(response.statusCode).toBe(500);
    expect(response.body).not.toContain('secret detail');
  });
});
