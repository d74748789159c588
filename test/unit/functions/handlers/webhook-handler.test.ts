import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseTriggerSettings } from '@diagnosis/core/config';
import { createMemoryIncidentStore, createMemoryStores } from '@diagnosis/core/store';
import { describe, expect, it } from 'vitest';
import {
  ALERTMANAGER_REPLAY_WINDOW_MS,
  createWebhookHandler,
  PAGERDUTY_MAX_AGE_MS,
} from '../../../../functions/handlers/webhook-handler.ts';
import { createObservability } from '../../../../functions/setup/observability.ts';
import { MAX_WEBHOOK_BODY_BYTES } from '../../../../functions/triggers/webhook-auth.ts';
import { httpEvent, lambdaContext } from '../../../support/lambda-events.ts';
import { recordingWorkflow } from '../../../support/recording-workflow.ts';

// The webhook handler on in-memory stores with a clock the test moves: the PagerDuty age and clock-skew edges, the
// replay claim's lifetime for both senders, and every refusal before anything is written, each with its exact code.
// (test/e2e/triggers-webhooks.test.ts runs the same handler on DynamoDB Local.)

const ROOT = resolve(import.meta.dirname, '../../../..');
const fixture = (name: string) => readFileSync(resolve(ROOT, 'test/fixtures/triggers', name), 'utf8');
const ALERTMANAGER = fixture('alertmanager-firing.json');
const PAGERDUTY = fixture('pagerduty-incident-triggered.json');
const TOKEN = 'am-token-0123456789abcdef';
const SECRET = 'pd-secret-current-0123456789';
const NOW = Date.parse('2026-11-30T06:06:35.000Z');
const SKEW_MS = 60_000;

function world(options: { alertmanagerToken?: string | undefined; pagerdutySecrets?: string[] | undefined } = {}) {
  const settings = parseTriggerSettings({
    DIAGNOSIS_TABLE_NAME: 'unit',
    TRIGGERS: JSON.stringify([
      { source: 'alertmanager', labels: { team: 'payments' }, enterpriseId: 'E1001', service: 'payment-gateway' },
      { source: 'pagerduty', serviceId: 'PF9KMXH', enterpriseId: 'E1001', service: 'payment-gateway' },
    ]),
  });
  const incidents = createMemoryIncidentStore();
  const claims: { source: string; eventId: string; at: number; expiresAt: number }[] = [];
  const recorded = recordingWorkflow();
  const handler = createWebhookHandler(
    {
      config: { mappings: settings.TRIGGERS, lookbackMs: 30 * 60_000, timeZone: 'Asia/Shanghai' },
      incidents: {
        ...incidents,
        claimWebhookEvent: (source, eventId, claim) => {
          claims.push({ source, eventId, ...claim });
          return incidents.claimWebhookEvent(source, eventId, claim);
        },
      },
      start: { store: createMemoryStores(), workflow: recorded.workflow },
      quietPeriodMs: 0,
      now: () => NOW,
      newRunId: () => `run-${claims.length}`,
      secrets: {
        alertmanagerToken: 'alertmanagerToken' in options ? options.alertmanagerToken : TOKEN,
        pagerdutySecrets: 'pagerdutySecrets' in options ? options.pagerdutySecrets : [SECRET],
      },
    },
    createObservability('TriggerWebhook', () => undefined),
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
    const parsed = JSON.parse(response.body) as { error?: { code: string } };
    return { status: response.statusCode, code: parsed.error?.code ?? null };
  }
  return { post, claims, started: recorded.started };
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
    expect(await post('pagerduty', body, signed(body))).toEqual({ status, code });
    expect(started).toHaveLength(status === 202 ? 1 : 0);
  });

  it('claims the event id until it can no longer pass the age check (its send time, the age and the skew)', async () => {
    const { post, claims } = world();
    const occurredAt = NOW - 9 * 60_000;
    const body = pagerDutyAt(occurredAt, '01DREPLAY');
    expect(await post('pagerduty', body, signed(body))).toEqual({ status: 202, code: null });
    expect(claims).toEqual([
      { source: 'pagerduty', eventId: '01DREPLAY', at: NOW, expiresAt: occurredAt + PAGERDUTY_MAX_AGE_MS + SKEW_MS },
    ]);
  });
});

describe('createWebhookHandler: Alertmanager replay window', () => {
  it('claims the body’s hash for the replay window from now', async () => {
    const { post, claims } = world();
    expect(await post('alertmanager', ALERTMANAGER, bearer)).toEqual({ status: 202, code: null });
    expect(claims).toEqual([
      {
        source: 'alertmanager',
        eventId: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
        at: NOW,
        expiresAt: NOW + ALERTMANAGER_REPLAY_WINDOW_MS,
      },
    ]);
    expect(ALERTMANAGER_REPLAY_WINDOW_MS).toBe(60 * 60_000);
  });
});

describe('createWebhookHandler: refusals before anything is written', () => {
  it.each([
    ['no bearer token', 'alertmanager', ALERTMANAGER, {}, {}, 401, 'WEBHOOK_UNAUTHENTICATED'],
    [
      'another bearer token',
      'alertmanager',
      ALERTMANAGER,
      { authorization: 'Bearer x' },
      {},
      401,
      'WEBHOOK_UNAUTHENTICATED',
    ],
    ['no signature', 'pagerduty', PAGERDUTY, {}, {}, 401, 'WEBHOOK_UNAUTHENTICATED'],
    [
      'a wrong signature',
      'pagerduty',
      PAGERDUTY,
      { 'x-pagerduty-signature': `v1=${'0'.repeat(64)}` },
      {},
      401,
      'WEBHOOK_BAD_SIGNATURE',
    ],
    ['a GET', 'alertmanager', ALERTMANAGER, bearer, { method: 'GET' }, 405, 'METHOD_NOT_ALLOWED'],
    ['an unknown source', 'opsgenie', ALERTMANAGER, bearer, {}, 404, 'UNKNOWN_TRIGGER_SOURCE'],
    ['a body that is not JSON', 'alertmanager', '{"version":', bearer, {}, 400, 'BODY_NOT_JSON'],
    [
      'a body that is not base64',
      'alertmanager',
      '{not base64}',
      bearer,
      { isBase64Encoded: true },
      400,
      'MALFORMED_EVENT',
    ],
  ] as const)('refuses %s', async (_label, source, body, headers, event, status, code) => {
    const { post, claims, started } = world();
    expect(await post(source, body, headers, event)).toEqual({ status, code });
    expect([claims, started]).toEqual([[], []]);
  });

  it('refuses a signed PagerDuty body that is not a v3 webhook as MALFORMED_EVENT', async () => {
    const { post, claims } = world();
    const body = JSON.stringify({ event: { id: 'x' } });
    expect(await post('pagerduty', body, signed(body))).toEqual({ status: 400, code: 'MALFORMED_EVENT' });
    expect(claims).toEqual([]);
  });

  it('refuses everything on a route whose secret is not set', async () => {
    const { post } = world({ alertmanagerToken: undefined, pagerdutySecrets: undefined });
    expect(await post('alertmanager', ALERTMANAGER, bearer)).toEqual({ status: 401, code: 'WEBHOOK_UNAUTHENTICATED' });
    expect(await post('pagerduty', PAGERDUTY, signed(PAGERDUTY))).toEqual({
      status: 401,
      code: 'WEBHOOK_UNAUTHENTICATED',
    });
  });

  it('reads a base64 body as the bytes the sender signed', async () => {
    const { post } = world();
    const body = pagerDutyAt(NOW);
    const encoded = Buffer.from(body).toString('base64');
    expect(await post('pagerduty', encoded, signed(body), { isBase64Encoded: true })).toEqual({
      status: 202,
      code: null,
    });
  });

  it('refuses a body one byte over the limit as 413, text or base64, and reads one at the limit', async () => {
    const { post } = world();
    const atLimit = `${ALERTMANAGER}${' '.repeat(MAX_WEBHOOK_BODY_BYTES - Buffer.byteLength(ALERTMANAGER))}`;
    expect(await post('alertmanager', atLimit, bearer)).toEqual({ status: 202, code: null });
    expect(await post('alertmanager', `${atLimit} `, bearer)).toEqual({ status: 413, code: 'WEBHOOK_BODY_TOO_LARGE' });
    const overBase64 = Buffer.from(`${atLimit} `).toString('base64');
    expect(await post('alertmanager', overBase64, bearer, { isBase64Encoded: true })).toEqual({
      status: 413,
      code: 'WEBHOOK_BODY_TOO_LARGE',
    });
    const multiByte = `${ALERTMANAGER}${'é'.repeat((MAX_WEBHOOK_BODY_BYTES - Buffer.byteLength(ALERTMANAGER)) / 2 + 1)}`;
    expect(await post('alertmanager', multiByte, bearer)).toEqual({ status: 413, code: 'WEBHOOK_BODY_TOO_LARGE' });
  });
});
