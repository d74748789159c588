// NOTE: over 300 lines on purpose: the webhook handler's refusals and windows with its fakes built once: each describe
// is one sender's rule on the same handler.
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { DEFAULT_RUN_LIMITS } from '@diagnosis/core';
import { parseTriggerSettings } from '@diagnosis/core/config';
import { createMemoryIncidentStore, createMemoryStores } from '@diagnosis/core/store';
import { describe, expect, it } from 'vitest';
import { createObservability } from '../../../../functions/lambda/observability.ts';
import { MAX_WEBHOOK_BODY_BYTES } from '../../../../functions/triggers/webhook-auth.ts';
import {
  ALERTMANAGER_REPLAY_WINDOW_MS,
  createWebhookHandler,
  PAGERDUTY_MAX_AGE_MS,
} from '../../../../functions/triggers/webhook-handler.ts';
import { httpEvent, lambdaContext } from '../../../support/lambda-events.ts';
import { recordingWorkflow } from '../../../support/recording-workflow.ts';

// The webhook handler on in-memory stores with a clock the test moves: the PagerDuty age and clock-skew edges, the
// replay claim's lifetime for both senders, and every refusal before anything is written, each with its exact code.
// (test/e2e/triggers/triggers-webhooks.test.ts runs the same handler on DynamoDB Local.)

const ROOT = resolve(import.meta.dirname, '../../../..');
const fixture = (name: string) => readFileSync(resolve(ROOT, 'test/fixtures/triggers', name), 'utf8');
const ALERTMANAGER = fixture('alertmanager-firing.json');
const PAGERDUTY = fixture('pagerduty-incident-triggered.json');
const TOKEN = 'am-token-0123456789abcdef';
const SECRET = 'pd-secret-current-0123456789';
const NOW = Date.parse('2026-11-30T06:06:35.000Z');
const SKEW_MS = 60_000;

function failingIncidentWrites(store: object): Record<string, () => Promise<never>> {
  const failing: Record<string, () => Promise<never>> = {};
  for (const [name, member] of Object.entries(store)) {
    if (typeof member === 'function' && name !== 'claimWebhookEvent' && name !== 'releaseWebhookEvent') {
      failing[name] = () => Promise.reject(new Error('dynamo down'));
    }
  }
  return failing;
}

function world(
  options: {
    alertmanagerToken?: string | undefined;
    pagerdutySecrets?: string[] | undefined;
    failStore?: boolean;
    /** The trigger mappings (default: one per sender, both on the shared secrets). */
    triggers?: readonly object[];
    mappingSecrets?: ReadonlyMap<string, readonly string[]>;
  } = {},
) {
  const settings = parseTriggerSettings({
    DIAGNOSIS_TABLE_NAME: 'unit',
    TRIGGERS: JSON.stringify(
      options.triggers ?? [
        { source: 'alertmanager', labels: { team: 'payments' }, enterpriseId: 'E1001', service: 'payment-gateway' },
        { source: 'pagerduty', serviceId: 'PF9KMXH', enterpriseId: 'E1001', service: 'payment-gateway' },
      ],
    ),
  });
  const incidents = createMemoryIncidentStore();
  const claims: { source: string; eventId: string; at: number; expiresAt: number }[] = [];
  const recorded = recordingWorkflow();
  const runs = createMemoryStores();
  const released: string[] = [];
  const lines: Record<string, unknown>[] = [];
  const handler = createWebhookHandler(
    {
      config: {
        mappings: settings.TRIGGERS,
        lookbackMs: 30 * 60_000,
        timeZone: 'Asia/Shanghai',
        maxQueryBytes: DEFAULT_RUN_LIMITS.maxQueryBytes,
      },
      incidents: {
        ...incidents,
        // NOTE: failStore: every incident write but the claim and its release fails, as a DynamoDB outage would.
        ...(options.failStore === true ? failingIncidentWrites(incidents) : {}),
        claimWebhookEvent: (source, eventId, claim) => {
          claims.push({ source, eventId, ...claim });
          return incidents.claimWebhookEvent(source, eventId, claim);
        },
        releaseWebhookEvent: (source, eventId) => {
          released.push(`${source}:${eventId}`);
          return incidents.releaseWebhookEvent(source, eventId);
        },
      },
      start: { store: runs, workflow: recorded.workflow },
      masking: {
        config: { mode: 'identifiers', secret: 'unit-test-masking-secret-of-at-least-32-characters' },
        pseudonyms: runs,
      },
      quietPeriodMs: 0,
      now: () => NOW,
      newRunId: () => `run-${claims.length}`,
      secrets: {
        alertmanagerToken: 'alertmanagerToken' in options ? options.alertmanagerToken : TOKEN,
        pagerdutySecrets: 'pagerdutySecrets' in options ? options.pagerdutySecrets : [SECRET],
        ...(options.mappingSecrets === undefined ? {} : { mappingSecrets: options.mappingSecrets }),
      },
    },
    createObservability('TriggerWebhook', (line) => void lines.push(JSON.parse(line))),
  );
  async function post(
    source: string,
    body: string,
    headers: Record<string, string>,
    event: { isBase64Encoded?: boolean; method?: string } = {},
  ) {
    const request = httpEvent({
      method: event.method ?? 'POST',
      path: `/triggers/${source}`,
      iam: false,
      body,
      headers: { 'content-type': 'application/json', ...headers },
      pathParameters: { source },
      ...(event.isBase64Encoded === undefined ? {} : { isBase64Encoded: event.isBase64Encoded }),
    });
    const response = (await handler(request as never, lambdaContext(30_000))) as { statusCode: number; body: string };
    const parsed = JSON.parse(response.body) as { error?: { code: string; message: string } };
    return { status: response.statusCode, code: parsed.error?.code ?? null, message: parsed.error?.message ?? null };
  }
  async function send(event: unknown) {
    const response = (await handler(event as never, lambdaContext(30_000))) as { statusCode: number; body: string };
    return { status: response.statusCode, body: JSON.parse(response.body) as unknown };
  }
  return { post, send, claims, released, lines, started: recorded.started };
}

const signed = (body: string) => ({
  'x-pagerduty-signature': `v1=${createHmac('sha256', SECRET).update(body).digest('hex')}`,
});
const pagerDutyAt = (occurredAt: number, id = '01DEVENT') => {
  const json = JSON.parse(PAGERDUTY);
  json.event.id = id;
  json.event.occurred_at = new Date(occurredAt).toISOString();
  return JSON.stringify(json);
};
const bearer = { authorization: `Bearer ${TOKEN}` };

describe('createWebhookHandler: PagerDuty event age', () => {
  it.each([
    ['exactly the longest age', NOW - PAGERDUTY_MAX_AGE_MS, 202, null],
    ['one millisecond older', NOW - PAGERDUTY_MAX_AGE_MS - 1, 401, 'WEBHOOK_STALE'],
    ['exactly the allowed clock skew ahead', NOW + SKEW_MS, 202, null],
    ['one millisecond further ahead', NOW + SKEW_MS + 1, 401, 'WEBHOOK_STALE'],
  ])('answers an event sent %s with %i', async (_label, occurredAt, status, code) => {
    const { post, started } = world();
    const body = pagerDutyAt(occurredAt);
    const message = code === null ? null : 'the event is too old (or from the future)';
    expect(await post('pagerduty', body, signed(body))).toEqual({ status, code, message });
    expect(started).toHaveLength(status === 202 ? 1 : 0);
  });

  it('claims the event id until it can no longer pass the age check (its send time, the age and the skew)', async () => {
    const { post, claims } = world();
    const occurredAt = NOW - 9 * 60_000;
    const body = pagerDutyAt(occurredAt, '01DREPLAY');
    expect(await post('pagerduty', body, signed(body))).toEqual({ status: 202, code: null, message: null });
    expect(claims).toEqual([
      { source: 'pagerduty', eventId: '01DREPLAY', at: NOW, expiresAt: occurredAt + PAGERDUTY_MAX_AGE_MS + SKEW_MS },
    ]);
  });
});

describe('createWebhookHandler: Alertmanager replay window', () => {
  it('claims the body’s hash for the replay window from now', async () => {
    const { post, claims, started } = world();
    expect(await post('alertmanager', ALERTMANAGER, bearer)).toEqual({ status: 202, code: null, message: null });
    expect(claims).toEqual([
      {
        source: 'alertmanager',
        eventId: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
        at: NOW,
        expiresAt: NOW + ALERTMANAGER_REPLAY_WINDOW_MS,
      },
    ]);
    expect(started).toHaveLength(1);
    expect(ALERTMANAGER_REPLAY_WINDOW_MS).toBe(60 * 60_000);
  });
});

const UNAUTHENTICATED_AM = 'a valid bearer token is required';
const UNAUTHENTICATED_PD = 'an X-PagerDuty-Signature is required';
const TOO_LARGE = 'the body is too large';

/** The Alertmanager fixture with every non-ASCII character escaped, padded with spaces to exactly `bytes`. */
function asciiAlertmanager(bytes: number): string {
  const ascii = JSON.stringify(JSON.parse(ALERTMANAGER)).replace(
    /[\u0080-\uffff]/g,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return `${ascii}${' '.repeat(bytes - ascii.length)}`;
}

describe('createWebhookHandler: refusals before anything is written', () => {
  it.each([
    ['no bearer token', 'alertmanager', ALERTMANAGER, {}, {}, 401, 'WEBHOOK_UNAUTHENTICATED', UNAUTHENTICATED_AM],
    [
      'another bearer token',
      'alertmanager',
      ALERTMANAGER,
      { authorization: 'Bearer x' },
      {},
      401,
      'WEBHOOK_UNAUTHENTICATED',
      UNAUTHENTICATED_AM,
    ],
    ['no signature', 'pagerduty', PAGERDUTY, {}, {}, 401, 'WEBHOOK_UNAUTHENTICATED', UNAUTHENTICATED_PD],
    [
      'a wrong signature',
      'pagerduty',
      PAGERDUTY,
      { 'x-pagerduty-signature': `v1=${'0'.repeat(64)}` },
      {},
      401,
      'WEBHOOK_BAD_SIGNATURE',
      'no signature matches the body',
    ],
    ['a GET', 'alertmanager', ALERTMANAGER, bearer, { method: 'GET' }, 405, 'METHOD_NOT_ALLOWED', 'use POST'],
    [
      'an unknown source',
      'opsgenie',
      ALERTMANAGER,
      bearer,
      {},
      404,
      'UNKNOWN_TRIGGER_SOURCE',
      'the sources are alertmanager and pagerduty',
    ],
    [
      'a body that is not JSON',
      'alertmanager',
      '{"version":',
      bearer,
      {},
      400,
      'BODY_NOT_JSON',
      'the body is not valid JSON',
    ],
    [
      'a body that is not base64',
      'alertmanager',
      '{not base64}',
      bearer,
      { isBase64Encoded: true },
      400,
      'MALFORMED_EVENT',
      'the body is not base64',
    ],
  ] as const)('refuses %s', async (_label, source, body, headers, event, status, code, message) => {
    const { post, claims, started, lines } = world();
    expect(await post(source, body, headers, event)).toEqual({ status, code, message });
    expect([claims, started]).toEqual([[], []]);
    expect(lines).toContainEqual(expect.objectContaining({ message: 'webhook refused', code }));
    expect(lines).toContainEqual(expect.objectContaining({ refusal: code, TriggerWebhookRefused: 1 }));
  });

  it('refuses an event that is not an HTTP API request as MALFORMED_EVENT', async () => {
    const { send } = world();
    const malformed = { requestContext: {}, body: ALERTMANAGER, pathParameters: { source: 'alertmanager' } };
    expect(await send(malformed)).toEqual({
      status: 400,
      body: { error: { code: 'MALFORMED_EVENT', message: 'the event is not a valid HTTP API request' } },
    });
  });

  it('refuses an event without path parameters as an unknown source', async () => {
    const { send } = world();
    const event = {
      ...httpEvent({ path: '/triggers/alertmanager', iam: false, body: ALERTMANAGER }),
      pathParameters: null,
    };
    expect(await send(event)).toMatchObject({ status: 404, body: { error: { code: 'UNKNOWN_TRIGGER_SOURCE' } } });
  });

  it('refuses a signed PagerDuty body that is not a v3 webhook as MALFORMED_EVENT', async () => {
    const { post, claims } = world();
    const body = JSON.stringify({ event: { id: 'x' } });
    expect(await post('pagerduty', body, signed(body))).toEqual({
      status: 400,
      code: 'MALFORMED_EVENT',
      message: 'the body is not a PagerDuty v3 webhook',
    });
    expect(claims).toEqual([]);
  });

  it('answers the same PagerDuty event delivered again as a duplicate (200), starting nothing more', async () => {
    const { post, send, started, claims, lines } = world();
    const body = pagerDutyAt(NOW, '01DTWICE');
    expect(await post('pagerduty', body, signed(body))).toEqual({ status: 202, code: null, message: null });
    const before = lines.length;
    const again = httpEvent({
      path: '/triggers/pagerduty',
      iam: false,
      body,
      headers: { 'content-type': 'application/json', ...signed(body) },
      pathParameters: { source: 'pagerduty' },
    });
    expect(await send(again)).toEqual({ status: 200, body: { outcome: 'DUPLICATE' } });
    expect(started).toHaveLength(1);
    expect(claims).toHaveLength(2);
    const duplicateLines = lines.slice(before);
    expect(duplicateLines).toContainEqual(
      expect.objectContaining({ level: 'INFO', message: 'webhook duplicate', source: 'pagerduty' }),
    );
    expect(duplicateLines).toContainEqual(expect.objectContaining({ outcome: 'DUPLICATE', TriggerEvents: 1 }));
  });

  it.each([
    ['no content type', undefined],
    ['a form-encoded body', 'application/x-www-form-urlencoded'],
    ['JSON in another charset', 'application/json; charset=iso-8859-1'],
  ])('refuses %s with 415 before the credential is checked', async (_label, type) => {
    const { send, claims, started, lines } = world();
    const headers: Record<string, string> = { ...bearer, ...(type === undefined ? {} : { 'content-type': type }) };
    const event = httpEvent({
      path: '/triggers/alertmanager',
      iam: false,
      body: ALERTMANAGER,
      headers,
      pathParameters: { source: 'alertmanager' },
    });
    expect(await send(event)).toEqual({
      status: 415,
      body: {
        error: { code: 'WEBHOOK_UNSUPPORTED_MEDIA_TYPE', message: 'the body must be application/json' },
      },
    });
    expect([claims, started]).toEqual([[], []]);
    expect(lines).toContainEqual(
      expect.objectContaining({ refusal: 'WEBHOOK_UNSUPPORTED_MEDIA_TYPE', TriggerWebhookRefused: 1 }),
    );
  });

  it('refuses everything on a route whose secret is not set', async () => {
    const { post } = world({ alertmanagerToken: undefined, pagerdutySecrets: undefined });
    expect(await post('alertmanager', ALERTMANAGER, bearer)).toEqual({
      status: 401,
      code: 'WEBHOOK_UNAUTHENTICATED',
      message: UNAUTHENTICATED_AM,
    });
    expect(await post('pagerduty', PAGERDUTY, signed(PAGERDUTY))).toEqual({
      status: 401,
      code: 'WEBHOOK_UNAUTHENTICATED',
      message: UNAUTHENTICATED_PD,
    });
  });

  it('reads a base64 body as the bytes the sender signed', async () => {
    const { post } = world();
    const body = pagerDutyAt(NOW);
    const encoded = Buffer.from(body).toString('base64');
    expect(await post('pagerduty', encoded, signed(body), { isBase64Encoded: true })).toEqual({
      status: 202,
      code: null,
      message: null,
    });
  });

  it('reads a body of exactly the limit, as text and as base64, and refuses one byte more with 413', async () => {
    const atLimit = asciiAlertmanager(MAX_WEBHOOK_BODY_BYTES);
    expect(atLimit).toHaveLength(MAX_WEBHOOK_BODY_BYTES);
    const base64 = (text: string) => Buffer.from(text).toString('base64');
    expect(await world().post('alertmanager', atLimit, bearer)).toMatchObject({ status: 202, code: null });
    expect(await world().post('alertmanager', base64(atLimit), bearer, { isBase64Encoded: true })).toMatchObject({
      status: 202,
      code: null,
    });
    const tooLarge = { status: 413, code: 'WEBHOOK_BODY_TOO_LARGE', message: TOO_LARGE };
    expect(await world().post('alertmanager', `${atLimit} `, bearer)).toEqual(tooLarge);
    expect(await world().post('alertmanager', base64(`${atLimit} `), bearer, { isBase64Encoded: true })).toEqual(
      tooLarge,
    );
    // NOTE: base64 longer than the limit's encoding is refused before it is decoded, with a shorter message.
    expect(await world().post('alertmanager', base64(`${atLimit}   `), bearer, { isBase64Encoded: true })).toEqual({
      ...tooLarge,
      message: 'too large',
    });
    const multiByte = `${atLimit.slice(0, -2)}é`;
    expect(multiByte).toHaveLength(MAX_WEBHOOK_BODY_BYTES - 1);
    expect(await world().post('alertmanager', `${multiByte}é`, bearer)).toEqual(tooLarge);
  });
});

describe('createWebhookHandler: a mapping with its own secret', () => {
  const OWN_TOKEN = 'am-own-token-payments-0123456789';
  const triggers = [
    {
      source: 'alertmanager',
      secret: 'WebhookPayments',
      labels: { team: 'payments' },
      enterpriseId: 'E1001',
      service: 'payment-gateway',
    },
  ];

  it('starts a run for a request bearing that secret’s value', async () => {
    const { post, started } = world({ triggers, mappingSecrets: new Map([['WebhookPayments', [OWN_TOKEN]]]) });
    const own = { authorization: `Bearer ${OWN_TOKEN}` };
    expect(await post('alertmanager', ALERTMANAGER, own)).toEqual({ status: 202, code: null, message: null });
    expect(started).toHaveLength(1);
  });

  it('refuses its requests (401, nothing claimed) when no mapping secrets were read at all', async () => {
    const { post, claims, started } = world({ triggers, alertmanagerToken: undefined });
    const own = { authorization: `Bearer ${OWN_TOKEN}` };
    expect(await post('alertmanager', ALERTMANAGER, own)).toEqual({
      status: 401,
      code: 'WEBHOOK_UNAUTHENTICATED',
      message: UNAUTHENTICATED_AM,
    });
    expect([claims, started]).toEqual([[], []]);
  });
});

describe('createWebhookHandler: a downstream failure', () => {
  it('answers 500 INTERNAL, logs the error class, and releases the event so the sender’s retry is no replay', async () => {
    const { post, released, lines } = world({ failStore: true });
    const body = pagerDutyAt(NOW, '01DFAIL');
    expect(await post('pagerduty', body, signed(body))).toEqual({
      status: 500,
      code: 'INTERNAL',
      message: 'the webhook could not be handled; retry later',
    });
    expect(released).toEqual(['pagerduty:01DFAIL']);
    expect(lines).toContainEqual(expect.objectContaining({ message: 'webhook failed', error: 'Error' }));
    expect(JSON.stringify(lines)).not.toContain('dynamo down');
  });
});
