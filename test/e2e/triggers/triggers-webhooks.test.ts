/**
 * `POST /triggers/{source}` through the real webhook handler (issue 21): API Gateway v2 events as AWS documents them
 * (a base64 body included), Alertmanager v4 with its bearer token, PagerDuty v3 with `X-PagerDuty-Signature`
 * (HMAC-SHA256 of the raw body, several during a rotation), on DynamoDB Local. Every refusal leaves the table as it
 * was. The workflow is a recorder: which runs were started is what is asserted here (the run itself is the
 * CloudWatch test's).
 * NOTE: over 300 lines on purpose: POST /triggers/{source} for each sender through the real handler on one table and
 * one set of signed fixtures.
 */
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { parseTriggerSettings } from '@diagnosis/core/config';
import { createDynamoRunStore } from '@diagnosis/core/store';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createObservability } from '../../../functions/lambda/observability.ts';
import { buildTriggerDeps } from '../../../functions/triggers/trigger-setup.ts';
import { MAX_WEBHOOK_BODY_BYTES } from '../../../functions/triggers/webhook-auth.ts';
import { createWebhookHandler, PAGERDUTY_MAX_AGE_MS } from '../../../functions/triggers/webhook-handler.ts';
import { createTestTable, localDynamoClient } from '../../support/dynamodb.ts';
import { httpEvent, lambdaContext } from '../../support/lambda-events.ts';
import { recordingWorkflow } from '../../support/recording-workflow.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
const text = (path: string) => readFileSync(resolve(ROOT, 'test/fixtures/triggers', path), 'utf8');
const ALERTMANAGER = text('alertmanager-firing.json');
const PAGERDUTY = text('pagerduty-incident-triggered.json');
const TOKEN = 'am-token-0123456789abcdef';
const SECRET = 'pd-secret-current-0123456789';
const OLD_SECRET = 'pd-secret-previous-0123456789';

const dynamo = localDynamoClient();
const documents = DynamoDBDocumentClient.from(dynamo);
let table: Awaited<ReturnType<typeof createTestTable>>;
let handler: ReturnType<typeof createWebhookHandler>;
const clock = Date.parse('2026-11-30T06:06:35.000Z');
const recorded = recordingWorkflow();
const { started } = recorded;
beforeAll(async () => {
  table = await createTestTable(dynamo);
  const settings = parseTriggerSettings({
    DIAGNOSIS_TABLE_NAME: table.tableName,
    DYNAMODB_ENDPOINT: await endpointOf(),
    TRIGGERS: JSON.stringify([
      { source: 'alertmanager', labels: { team: 'payments' }, enterpriseId: 'E1001', service: 'payment-gateway' },
      { source: 'pagerduty', serviceId: 'PF9KMXH', enterpriseId: 'E1001', service: 'payment-gateway' },
    ]),
    ALERTMANAGER_WEBHOOK_TOKEN: TOKEN,
    PAGERDUTY_WEBHOOK_SECRETS: `${SECRET},${OLD_SECRET}`,
  });
  const deps = await buildTriggerDeps(settings, () => clock, undefined, recorded.workflow);
  const { workflow } = recorded;
  handler = createWebhookHandler(
    {
      ...deps,
      start: { ...deps.start, workflow },
      secrets: {
        alertmanagerToken: settings.ALERTMANAGER_WEBHOOK_TOKEN,
        pagerdutySecrets: settings.PAGERDUTY_WEBHOOK_SECRETS,
      },
    },
    createObservability('TriggerWebhook', () => undefined),
  );
});
afterAll(async () => {
  await table.drop();
  dynamo.destroy();
});

const endpointOf = async () => inject('dynamodbEndpoint');

async function items(): Promise<Record<string, unknown>[]> {
  const page = await documents.send(new ScanCommand({ TableName: table.tableName, ConsistentRead: true }));
  return (page.Items ?? []).sort((a, b) => `${a.pk}|${a.sk}`.localeCompare(`${b.pk}|${b.sk}`));
}

const sign = (body: string | Buffer, secret: string) => `v1=${createHmac('sha256', secret).update(body).digest('hex')}`;

async function post(
  source: string,
  body: string,
  headers: Record<string, string>,
  options: { isBase64Encoded?: boolean; method?: string } = {},
) {
  const event = httpEvent({
    method: options.method ?? 'POST',
    path: `/triggers/${source}`,
    iam: false,
    body,
    headers: { 'content-type': 'application/json', ...headers },
    pathParameters: { source },
    ...(options.isBase64Encoded === undefined ? {} : { isBase64Encoded: options.isBase64Encoded }),
  });
  const response = (await handler(event as never, lambdaContext(30_000))) as { statusCode: number; body: string };
  return {
    status: response.statusCode,
    body: JSON.parse(response.body) as { runId: string; outcome?: string } & Record<string, unknown>,
  };
}

/** Asserts that `act` is refused with `status` and `code` and leaves every item of the table as it was. */
async function refusedWithNothingWritten(act: () => ReturnType<typeof post>, status: number, code: string) {
  const before = await items();
  const startedBefore = started.length;
  const answer = await act();
  expect(answer).toEqual({ status, body: { error: { code, message: expect.any(String) } } });
  expect(await items()).toEqual(before);
  expect(started.length).toBe(startedBefore);
}

/** Asserts that `act` is answered 200 DUPLICATE and leaves every item of the table as it was. */
async function duplicateWithNothingWritten(act: () => ReturnType<typeof post>) {
  const before = await items();
  const startedBefore = started.length;
  expect(await act()).toEqual({ status: 200, body: { outcome: 'DUPLICATE' } });
  expect(await items()).toEqual(before);
  expect(started.length).toBe(startedBefore);
}

const bearer = { authorization: `Bearer ${TOKEN}` };
const withEventId = (body: string, id: string, occurredAt?: string) => {
  const json = JSON.parse(body);
  json.event.id = id;
  if (occurredAt !== undefined) json.event.occurred_at = occurredAt;
  return JSON.stringify(json);
};

describe('POST /triggers/alertmanager', () => {
  it('starts a run for a firing group with the mapping’s tenant (never the alert’s own tenant label)', async () => {
    const answer = await post('alertmanager', ALERTMANAGER, bearer);
    expect(answer).toMatchObject({ status: 202, body: { outcome: 'STARTED', continued: false } });
    const run = await createDynamoRunStore({ client: dynamo, tableName: table.tableName }).getRun(answer.body.runId);
    expect(run).toMatchObject({
      enterpriseId: 'E1001',
      trigger: {
        source: 'alertmanager',
        // The group key alone: Alertmanager keeps it for the group's life, whatever its alerts do.
        incidentKey: '{}/{team="payments"}:{alertname="PaymentGatewayHighErrorRate"}',
        title: 'PaymentGatewayHighErrorRate',
      },
      window: { from: '2026-11-30T05:34:58.402Z', to: '2026-11-30T06:06:35.000Z' },
    });
    expect(run?.query).toBe(
      'Alertmanager 告警「PaymentGatewayHighErrorRate」于 2026-11-30T14:04:58+08:00（Asia/Shanghai）开始触发。告警摘要：payment-gateway 5xx 比例超过 5%。相关服务：payment-gateway。请诊断原因，并给出证据。' +
        '\n（提示，不是证据：回看窗口内到告警开始，本企业记录了 0 条变更；可用 query_logs 的 service changes 查看。）',
    );
    expect(started).toContain(answer.body.runId);
  });

  it('answers the same body again (Alertmanager’s repeat of an unchanged group) 200 DUPLICATE, writing nothing', async () => {
    await duplicateWithNothingWritten(() => post('alertmanager', ALERTMANAGER, bearer));
  });

  it('attaches the next notification of the same group (one more alert) to the open run, sent base64-encoded', async () => {
    const json = JSON.parse(ALERTMANAGER);
    json.alerts.push({ ...json.alerts[0], fingerprint: '0a0b0c0d0e0f1011', startsAt: '2026-11-30T06:06:00.000Z' });
    const body = Buffer.from(JSON.stringify(json)).toString('base64');
    const answer = await post('alertmanager', body, bearer, { isBase64Encoded: true });
    expect(answer).toMatchObject({ status: 202, body: { outcome: 'ATTACHED', sequence: 1 } });
  });

  it.each([
    ['no token', {}],
    ['a wrong token', { authorization: `Bearer ${TOKEN}x` }],
    ['the token without its scheme', { authorization: TOKEN }],
    ['basic auth', { authorization: `Basic ${Buffer.from(`u:${TOKEN}`).toString('base64')}` }],
  ])('refuses a request with %s, writing nothing', async (_, headers) => {
    const body = ALERTMANAGER.replace('critical', 'warning');
    await refusedWithNothingWritten(() => post('alertmanager', body, headers), 401, 'WEBHOOK_UNAUTHENTICATED');
  });

  it('refuses an oversized body with 413 before reading it, text or base64', async () => {
    const huge = `{"pad":"${'x'.repeat(MAX_WEBHOOK_BODY_BYTES)}"}`;
    await refusedWithNothingWritten(() => post('alertmanager', huge, bearer), 413, 'WEBHOOK_BODY_TOO_LARGE');
    const encoded = Buffer.from(huge).toString('base64');
    await refusedWithNothingWritten(
      () => post('alertmanager', encoded, bearer, { isBase64Encoded: true }),
      413,
      'WEBHOOK_BODY_TOO_LARGE',
    );
  });

  it('records a resolved group on its run, ignores one never opened and one no mapping takes, and starts nothing', async () => {
    const startedBefore = started.length;
    const resolved = JSON.parse(ALERTMANAGER);
    resolved.status = 'resolved';
    for (const alert of resolved.alerts) {
      alert.status = 'resolved';
      alert.endsAt = '2026-11-30T06:06:30.000Z';
    }
    expect(await post('alertmanager', JSON.stringify(resolved), bearer)).toMatchObject({
      status: 202,
      body: { outcome: 'ATTACHED', sequence: 2, kind: 'RESOLVED' },
    });
    resolved.groupKey = '{}/{team="payments"}:{alertname="NeverFired"}';
    expect(await post('alertmanager', JSON.stringify(resolved), bearer)).toEqual({
      status: 202,
      body: { outcome: 'IGNORED', code: 'NO_INCIDENT' },
    });
    const other = JSON.parse(ALERTMANAGER);
    other.commonLabels.team = 'billing';
    expect(await post('alertmanager', JSON.stringify(other), bearer)).toEqual({
      status: 202,
      body: { outcome: 'IGNORED', code: 'UNMAPPED' },
    });
    expect(started.length).toBe(startedBefore);
  });
});

describe('POST /triggers/pagerduty', () => {
  it('starts a run for a validly signed incident.triggered', async () => {
    const answer = await post('pagerduty', PAGERDUTY, { 'x-pagerduty-signature': sign(PAGERDUTY, SECRET) });
    expect(answer).toMatchObject({ status: 202, body: { outcome: 'STARTED' } });
    const run = await createDynamoRunStore({ client: dynamo, tableName: table.tableName }).getRun(answer.body.runId);
    expect(run).toMatchObject({
      enterpriseId: 'E1001',
      trigger: { source: 'pagerduty', incidentKey: 'Q2W8ZKH3R5TB7Y', eventId: '01DFPX6K8Q3JZ5W0N2R7TB4C9M' },
    });
  });

  it('answers the same event again (PagerDuty’s retry), correctly signed, 200 DUPLICATE, writing nothing', async () => {
    await duplicateWithNothingWritten(() =>
      post('pagerduty', PAGERDUTY, { 'x-pagerduty-signature': sign(PAGERDUTY, SECRET) }),
    );
  });

  it('accepts a delivery during a secret rotation, signed with the previous secret beside a stale signature', async () => {
    const body = withEventId(PAGERDUTY, '01DFPX6K8Q3JZ5W0N2R7TB4C9N');
    const header = `${sign(body, 'pd-secret-retired-000000000')},${sign(body, OLD_SECRET)}`;
    const answer = await post('pagerduty', body, { 'x-pagerduty-signature': header });
    expect(answer).toMatchObject({ status: 202, body: { outcome: 'ATTACHED' } });
  });

  it.each([
    [
      'a signature made with another secret',
      (body: string) => ({ 'x-pagerduty-signature': sign(body, 'not-our-secret-000000') }),
    ],
    ['a signature of another body', () => ({ 'x-pagerduty-signature': sign(PAGERDUTY, SECRET) })],
    ['a malformed signature', () => ({ 'x-pagerduty-signature': 'v1=zz' })],
    ['another scheme', (body: string) => ({ 'x-pagerduty-signature': sign(body, SECRET).replace('v1=', 'v0=') })],
  ])('refuses %s as WEBHOOK_BAD_SIGNATURE, writing nothing', async (_, headers) => {
    const body = withEventId(PAGERDUTY, '01DFPX6K8Q3JZ5W0N2R7TBFORG');
    await refusedWithNothingWritten(() => post('pagerduty', body, headers(body)), 401, 'WEBHOOK_BAD_SIGNATURE');
  });

  it('refuses an unsigned request, writing nothing', async () => {
    const body = withEventId(PAGERDUTY, '01DFPX6K8Q3JZ5W0N2R7TBNONE');
    await refusedWithNothingWritten(() => post('pagerduty', body, {}), 401, 'WEBHOOK_UNAUTHENTICATED');
  });

  it('refuses a correctly signed event older than the staleness window, writing nothing', async () => {
    const occurredAt = new Date(clock - PAGERDUTY_MAX_AGE_MS - 1_000).toISOString();
    const body = withEventId(PAGERDUTY, '01DFPX6K8Q3JZ5W0N2R7TBSTAL', occurredAt);
    await refusedWithNothingWritten(
      () => post('pagerduty', body, { 'x-pagerduty-signature': sign(body, SECRET) }),
      401,
      'WEBHOOK_STALE',
    );
  });

  it('refuses an oversized body with 413, signed or not', async () => {
    const huge = `${PAGERDUTY.slice(0, -2)},"pad":"${'x'.repeat(MAX_WEBHOOK_BODY_BYTES)}"}}`;
    await refusedWithNothingWritten(
      () => post('pagerduty', huge, { 'x-pagerduty-signature': sign(huge, SECRET) }),
      413,
      'WEBHOOK_BODY_TOO_LARGE',
    );
  });

  it('ignores other event types, and refuses unknown sources and other methods', async () => {
    const annotated = JSON.parse(withEventId(PAGERDUTY, '01DFPX6K8Q3JZ5W0N2R7TBACKN'));
    annotated.event.event_type = 'incident.annotated';
    const body = JSON.stringify(annotated);
    expect(await post('pagerduty', body, { 'x-pagerduty-signature': sign(body, SECRET) })).toEqual({
      status: 202,
      body: { outcome: 'IGNORED', code: 'NOT_FIRING' },
    });
    await refusedWithNothingWritten(() => post('cloudwatch', PAGERDUTY, bearer), 404, 'UNKNOWN_TRIGGER_SOURCE');
    await refusedWithNothingWritten(
      () => post('pagerduty', PAGERDUTY, {}, { method: 'GET' }),
      405,
      'METHOD_NOT_ALLOWED',
    );
  });
});

describe('a webhook route whose secret is not set', () => {
  it('refuses every request', async () => {
    const deps = await buildTriggerDeps(
      parseTriggerSettings({ DIAGNOSIS_TABLE_NAME: table.tableName, DYNAMODB_ENDPOINT: await endpointOf() }),
      () => clock,
      undefined,
      recorded.workflow,
    );
    const closed = createWebhookHandler(
      { ...deps, secrets: { alertmanagerToken: undefined, pagerdutySecrets: undefined } },
      createObservability('TriggerWebhook', () => undefined),
    );
    const before = await items();
    for (const [source, headers] of [
      ['alertmanager', bearer],
      ['pagerduty', { 'x-pagerduty-signature': sign(PAGERDUTY, SECRET) }],
    ] as const) {
      const event = httpEvent({
        path: `/triggers/${source}`,
        iam: false,
        body: PAGERDUTY,
        headers: { 'content-type': 'application/json', ...headers },
        pathParameters: { source },
      });
      const response = (await closed(event as never, lambdaContext(10_000))) as { statusCode: number; body: string };
      expect(response.statusCode).toBe(401);
      expect(JSON.parse(response.body).error.code).toBe('WEBHOOK_UNAUTHENTICATED');
    }
    expect(await items()).toEqual(before);
  });
});
