/**
 * Who may start which mapping's runs (issue 32, hardening), through the real handlers on DynamoDB Local: a webhook
 * mapping with its own credential is reached only with that credential (a token for E1001's mapping cannot start
 * E2002's runs; the shared secret reaches neither), rotation included; a CloudWatch mapping that names an account and
 * region takes only alarms of that account and region (a cross-account bus cannot name an alarm into it). The
 * workflow is a recorder.
 * NOTE: over 300 lines on purpose: who may start which mapping's runs, each rule through the real handlers on one
 * table with its mappings and credentials.
 */
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseTriggerSettings, SettingsError, type TriggerMapping } from '@diagnosis/core/config';
import { createDynamoRunStore } from '@diagnosis/core/store';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createObservability } from '../../../functions/lambda/observability.ts';
import { parseMappingSecrets } from '../../../functions/triggers/mapping-credentials.ts';
import { createTriggerHandler } from '../../../functions/triggers/trigger-handler.ts';
import { buildTriggerDeps } from '../../../functions/triggers/trigger-setup.ts';
import { createWebhookHandler } from '../../../functions/triggers/webhook-handler.ts';
import { publishedOutcome } from '../../support/audit-events.ts';
import { createTestTable, localDynamoClient } from '../../support/dynamodb.ts';
import { httpEvent, lambdaContext } from '../../support/lambda-events.ts';
import { recordingWorkflow } from '../../support/recording-workflow.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
const json = (path: string) => JSON.parse(readFileSync(resolve(ROOT, path), 'utf8'));
const PAGERDUTY = json('test/fixtures/triggers/pagerduty-incident-triggered.json');
const ALERTMANAGER = json('test/fixtures/triggers/alertmanager-firing.json');
const ALARM = json('examples/triggers/cloudwatch-alarm.json');

const SHARED_TOKEN = 'am-shared-token-0123456789';
const E1001_TOKEN = 'am-e1001-token-0123456789';
const E2002_TOKEN = 'am-e2002-token-current-01';
const E2002_OLD_TOKEN = 'am-e2002-token-previous-1';
const SHARED_PD = 'pd-shared-secret-0123456789';
const E1001_PD = 'pd-e1001-secret-0123456789';

const MAPPINGS = [
  { source: 'alertmanager', labels: { team: 'payments' }, enterpriseId: 'E1001', secret: 'WebhookAmE1001' },
  { source: 'alertmanager', labels: { team: 'billing' }, enterpriseId: 'E2002', secret: 'WebhookAmE2002' },
  { source: 'alertmanager', labels: { team: 'search' }, enterpriseId: 'E3003' },
  { source: 'pagerduty', serviceId: 'PF9KMXH', enterpriseId: 'E1001', secret: 'WebhookPdE1001' },
  { source: 'pagerduty', serviceId: 'PX2SHARED', enterpriseId: 'E2002' },
  {
    source: 'cloudwatch',
    alarmNamePattern: 'E1001-*',
    enterpriseId: 'E1001',
    accountId: '123456789012',
    region: 'cn-north-1',
  },
];
const MAPPING_SECRETS: Record<string, string> = {
  WebhookAmE1001: E1001_TOKEN,
  WebhookAmE2002: `${E2002_TOKEN},${E2002_OLD_TOKEN}`,
  WebhookPdE1001: E1001_PD,
};

const dynamo = localDynamoClient();
let table: Awaited<ReturnType<typeof createTestTable>>;
let webhook: ReturnType<typeof createWebhookHandler>;
let trigger: ReturnType<typeof createTriggerHandler>;
const clock = Date.parse('2026-11-30T06:06:35.000Z');
const recorded = recordingWorkflow();
beforeAll(async () => {
  table = await createTestTable(dynamo);
  const settings = parseTriggerSettings({
    DIAGNOSIS_TABLE_NAME: table.tableName,
    DYNAMODB_ENDPOINT: inject('dynamodbEndpoint'),
    TRIGGERS: JSON.stringify(MAPPINGS),
    ALERTMANAGER_WEBHOOK_TOKEN: SHARED_TOKEN,
    PAGERDUTY_WEBHOOK_SECRETS: SHARED_PD,
  });
  const deps = await buildTriggerDeps(settings, () => clock, dynamo, recorded.workflow);
  webhook = createWebhookHandler(
    {
      ...deps,
      secrets: {
        alertmanagerToken: settings.ALERTMANAGER_WEBHOOK_TOKEN,
        pagerdutySecrets: settings.PAGERDUTY_WEBHOOK_SECRETS,
        mappingSecrets: parseMappingSecrets(settings.TRIGGERS, (name) => MAPPING_SECRETS[name]),
      },
    },
    createObservability('TriggerWebhook', () => undefined),
  );
  trigger = createTriggerHandler(
    deps,
    createObservability('Trigger', () => undefined),
  );
});
afterAll(async () => {
  await table.drop();
  dynamo.destroy();
});

let counter = 0;
async function post(source: 'alertmanager' | 'pagerduty', body: string, headers: Record<string, string>) {
  const event = httpEvent({
    path: `/triggers/${source}`,
    iam: false,
    body,
    headers: { 'content-type': 'application/json', ...headers },
    pathParameters: { source },
  });
  const response = (await webhook(event as never, lambdaContext(30_000))) as { statusCode: number; body: string };
  return { status: response.statusCode, body: JSON.parse(response.body) as Record<string, unknown> };
}
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const signed = (body: string, secret: string) => ({
  'x-pagerduty-signature': `v1=${createHmac('sha256', secret).update(body).digest('hex')}`,
});
/** A fresh firing group of `team` (its own group key, so its own incident and body). */
function group(team: string) {
  counter += 1;
  const body = structuredClone(ALERTMANAGER);
  body.groupKey = `{}/{team="${team}"}:{alertname="hardening-${counter}"}`;
  body.commonLabels.team = team;
  return JSON.stringify(body);
}
function incident(serviceId: string) {
  counter += 1;
  const body = structuredClone(PAGERDUTY);
  body.event.id = `01HARDENING${String(counter).padStart(6, '0')}`;
  body.event.data.id = `QHARD${counter}`;
  body.event.data.service.id = serviceId;
  return JSON.stringify(body);
}
const enterpriseOf = async (runId: unknown) =>
  (await createDynamoRunStore({ client: dynamo, tableName: table.tableName }).getRun(String(runId)))?.enterpriseId;

describe('a webhook mapping with its own credential', () => {
  it('is reached with its own token, and only its own mapping is', async () => {
    const started = await post('alertmanager', group('payments'), bearer(E1001_TOKEN));
    expect(started).toMatchObject({ status: 202, body: { outcome: 'STARTED' } });
    expect(await enterpriseOf(started.body.runId)).toBe('E1001');
  });

  it('cannot start another mapping’s runs: E1001’s token on E2002’s group starts nothing', async () => {
    const before = recorded.started.length;
    expect(await post('alertmanager', group('billing'), bearer(E1001_TOKEN))).toEqual({
      status: 202,
      body: { outcome: 'IGNORED', code: 'UNMAPPED' },
    });
    // Nor a mapping on the shared token.
    expect(await post('alertmanager', group('search'), bearer(E1001_TOKEN))).toEqual({
      status: 202,
      body: { outcome: 'IGNORED', code: 'UNMAPPED' },
    });
    expect(recorded.started.length).toBe(before);
  });

  it('is not reached with the shared token, which reaches only the mappings without a credential', async () => {
    expect(await post('alertmanager', group('payments'), bearer(SHARED_TOKEN))).toEqual({
      status: 202,
      body: { outcome: 'IGNORED', code: 'UNMAPPED' },
    });
    const shared = await post('alertmanager', group('search'), bearer(SHARED_TOKEN));
    expect(shared).toMatchObject({ status: 202, body: { outcome: 'STARTED' } });
    expect(await enterpriseOf(shared.body.runId)).toBe('E3003');
  });

  it('takes either value during a rotation', async () => {
    for (const token of [E2002_TOKEN, E2002_OLD_TOKEN]) {
      const answer = await post('alertmanager', group('billing'), bearer(token));
      expect(answer).toMatchObject({ status: 202, body: { outcome: 'STARTED' } });
      expect(await enterpriseOf(answer.body.runId)).toBe('E2002');
    }
  });

  it('refuses a token that is no credential of the route, writing nothing', async () => {
    const before = recorded.started.length;
    const answer = await post('alertmanager', group('payments'), bearer(`${E1001_TOKEN}x`));
    expect(answer).toEqual({
      status: 401,
      body: { error: { code: 'WEBHOOK_UNAUTHENTICATED', message: expect.any(String) } },
    });
    expect(recorded.started.length).toBe(before);
  });

  it('binds PagerDuty signatures the same way: the mapping’s secret reaches only its service', async () => {
    const own = incident('PF9KMXH');
    const started = await post('pagerduty', own, signed(own, E1001_PD));
    expect(started).toMatchObject({ status: 202, body: { outcome: 'STARTED' } });
    const crossed = incident('PX2SHARED');
    expect(await post('pagerduty', crossed, signed(crossed, E1001_PD))).toEqual({
      status: 202,
      body: { outcome: 'IGNORED', code: 'UNMAPPED' },
    });
    const sharedOnOwn = incident('PF9KMXH');
    expect(await post('pagerduty', sharedOnOwn, signed(sharedOnOwn, SHARED_PD))).toEqual({
      status: 202,
      body: { outcome: 'IGNORED', code: 'UNMAPPED' },
    });
    const forged = incident('PF9KMXH');
    expect(await post('pagerduty', forged, signed(forged, 'pd-not-a-secret-of-ours-01'))).toMatchObject({
      status: 401,
      body: { error: { code: 'WEBHOOK_BAD_SIGNATURE' } },
    });
  });
});

describe('parseMappingSecrets', () => {
  const mappings = MAPPINGS as TriggerMapping[];

  it('fails the cold start naming a secret whose value is unusable, never the value', () => {
    for (const value of ['short', 'has a space in the token', `${'x'.repeat(20)},${'y'.repeat(600)}`]) {
      let error: unknown;
      try {
        parseMappingSecrets(mappings, (name) => (name === 'WebhookAmE2002' ? value : MAPPING_SECRETS[name]));
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(SettingsError);
      expect((error as SettingsError).keys).toEqual(['WebhookAmE2002']);
      expect(String((error as Error).message)).not.toContain(value);
    }
  });

  it('leaves out a secret that is unset or "none": its mapping refuses every request', () => {
    const secrets = parseMappingSecrets(mappings, (name) =>
      name === 'WebhookAmE1001' ? 'none' : MAPPING_SECRETS[name],
    );
    expect([...secrets.keys()].sort()).toEqual(['WebhookAmE2002', 'WebhookPdE1001']);
  });
});

describe('a CloudWatch mapping with an account and region condition', () => {
  const alarm = (account: string, region: string, arnAccount = account, arnRegion = region) => {
    counter += 1;
    const event = structuredClone(ALARM);
    event.id = `hardening-alarm-${counter}`;
    event.account = account;
    event.region = region;
    event.detail.alarmName = `E1001-hardening-${counter}`;
    event.resources = [`arn:aws:cloudwatch:${arnRegion}:${arnAccount}:alarm:${event.detail.alarmName}`];
    return event;
  };
  const fire = async (event: unknown) => (await trigger(event, lambdaContext(30_000))) as Record<string, unknown>;

  it('starts a run for an alarm of its account and region', async () => {
    expect(await fire(alarm('123456789012', 'cn-north-1'))).toMatchObject({ outcome: 'STARTED' });
  });

  it.each([
    ['another account', alarm('999999999999', 'cn-north-1')],
    ['another region', alarm('123456789012', 'cn-northwest-1')],
    ['an ARN of another account than the event says', alarm('123456789012', 'cn-north-1', '999999999999')],
    ['an ARN of another region than the event says', alarm('123456789012', 'cn-north-1', undefined, 'us-east-1')],
  ])('ignores an alarm of %s as UNMAPPED, starting nothing', async (_, event) => {
    const before = recorded.started.length;
    expect(await fire(event)).toEqual({ outcome: 'IGNORED', code: 'UNMAPPED' });
    expect(recorded.started.length).toBe(before);
  });

  it('ignores an alarm event that carries no account', async () => {
    const event = alarm('123456789012', 'cn-north-1');
    delete event.account;
    expect(await fire(event)).toEqual({ outcome: 'IGNORED', code: 'UNMAPPED' });
  });
});

describe('a re-fire refused by admission, through the webhook route (issue 32 item 6)', () => {
  it('is refused honestly on every retry while the tenant is full, then starts; never attached to a run that 404s', async () => {
    let now = clock;
    const settings = parseTriggerSettings({
      DIAGNOSIS_TABLE_NAME: table.tableName,
      DYNAMODB_ENDPOINT: inject('dynamodbEndpoint'),
      TRIGGERS: JSON.stringify([{ source: 'pagerduty', serviceId: 'PREFIRE', enterpriseId: 'E4004' }]),
      PAGERDUTY_WEBHOOK_SECRETS: SHARED_PD,
      TENANT_MAX_OPEN_RUNS: '1',
      TRIGGER_QUIET_PERIOD_SECONDS: '600',
    });
    const deps = await buildTriggerDeps(settings, () => now, dynamo, recorded.workflow);
    const route = createWebhookHandler(
      { ...deps, secrets: { alertmanagerToken: undefined, pagerdutySecrets: settings.PAGERDUTY_WEBHOOK_SECRETS } },
      createObservability('TriggerWebhook', () => undefined),
    );
    const store = createDynamoRunStore({ client: dynamo, tableName: table.tableName });
    const send = async (incidentId: string, eventId: string) => {
      const body = structuredClone(PAGERDUTY);
      body.event.id = eventId;
      body.event.occurred_at = new Date(now).toISOString();
      body.event.data.id = incidentId;
      body.event.data.created_at = new Date(now).toISOString();
      body.event.data.service.id = 'PREFIRE';
      const text = JSON.stringify(body);
      const event = httpEvent({
        path: '/triggers/pagerduty',
        iam: false,
        body: text,
        headers: { 'content-type': 'application/json', ...signed(text, SHARED_PD) },
        pathParameters: { source: 'pagerduty' },
      });
      const response = (await route(event as never, lambdaContext(30_000))) as { statusCode: number; body: string };
      return { status: response.statusCode, body: JSON.parse(response.body) as Record<string, unknown> };
    };
    const finish = async (runId: unknown) => {
      await store.claimQueuedRun(String(runId), now + 900_000);
      await store.completeRun(String(runId), publishedOutcome());
    };

    const first = await send('QREFIRE', '01REFIRE000001');
    expect(first).toMatchObject({ status: 202, body: { outcome: 'STARTED' } });
    await finish(first.body.runId);
    now += 700_000;
    const occupier = await send('QOCCUPY', '01REFIRE000002');
    expect(occupier).toMatchObject({ status: 202, body: { outcome: 'STARTED' } });
    // The re-fire: refused by admission (500, the sender retries), and so is its retry — never 202 ATTACHED.
    expect((await send('QREFIRE', '01REFIRE000003')).status).toBe(500);
    now += 30_000;
    const retry = await send('QREFIRE', '01REFIRE000003');
    expect(retry.status).toBe(500);
    expect(retry.body).not.toHaveProperty('outcome');
    await finish(occupier.body.runId);
    now += 30_000;
    const started = await send('QREFIRE', '01REFIRE000003');
    expect(started).toMatchObject({ status: 202, body: { outcome: 'STARTED', continued: true } });
    expect(await store.getRun(String(started.body.runId))).toMatchObject({ status: 'QUEUED', enterpriseId: 'E4004' });
  });
});
