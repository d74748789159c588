/**
 * What real senders send after the first event (issue 32, items 1–3), through the real webhook and Trigger handlers on
 * DynamoDB Local, with the real GetRun handler reading the result: an Alertmanager group whose earliest alert resolves
 * while others fire (one notification mixing both, then the group without it), its byte-identical repeats, its full
 * resolution and a later re-fire; PagerDuty's acknowledged / resolved / reopened and its retried deliveries; a
 * CloudWatch alarm's ALARM → ALARM update; bodies that are not JSON. The workflow is a recorder (which runs were started
 * is what is asserted); a run is ended by the store as the workflow would end it. The clock is injected.
 * NOTE: over 300 lines on purpose: what each sender sends after the first event, one sender per describe, over one
 * table and its recorders.
 */
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseTriggerSettings } from '@diagnosis/core/config';
import { createDynamoRunStore } from '@diagnosis/core/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createObservability } from '../../../functions/lambda/observability.ts';
import { createTriggerHandler } from '../../../functions/triggers/trigger-handler.ts';
import { buildTriggerDeps } from '../../../functions/triggers/trigger-setup.ts';
import { createWebhookHandler } from '../../../functions/triggers/webhook-handler.ts';
import { publishedOutcome } from '../../support/audit-events.ts';
import { localDynamoClient } from '../../support/dynamodb.ts';
import { startE2eWorld } from '../../support/e2e-world.ts';
import { schemaErrors } from '../../support/json-schemas.ts';
import { httpEvent, lambdaContext } from '../../support/lambda-events.ts';
import { recordingWorkflow } from '../../support/recording-workflow.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
const fixture = (path: string) => readFileSync(resolve(ROOT, path), 'utf8');
const PAGERDUTY = JSON.parse(fixture('test/fixtures/triggers/pagerduty-incident-triggered.json'));
const ALARM = JSON.parse(fixture('examples/triggers/cloudwatch-alarm.json'));
const TOKEN = 'am-token-lifecycle-0123456789';
const SECRET = 'pd-secret-lifecycle-0123456789';

let world: Awaited<ReturnType<typeof startE2eWorld>>;
const dynamo = localDynamoClient();
let clock = Date.parse('2026-11-30T06:06:35.000Z');
const recorded = recordingWorkflow();
const { started } = recorded;
let webhook: ReturnType<typeof createWebhookHandler>;
let trigger: ReturnType<typeof createTriggerHandler>;
beforeAll(async () => {
  world = await startE2eWorld({
    TRIGGERS: JSON.stringify([
      { source: 'alertmanager', labels: { team: 'payments' }, enterpriseId: 'E1001', service: 'payment-gateway' },
      { source: 'pagerduty', serviceId: 'PF9KMXH', enterpriseId: 'E1001', service: 'payment-gateway' },
      { source: 'cloudwatch', alarmNamePattern: 'E1001-payment-*', enterpriseId: 'E1001' },
    ]),
    ALERTMANAGER_WEBHOOK_TOKEN: TOKEN,
    PAGERDUTY_WEBHOOK_SECRETS: SECRET,
    TRIGGER_QUIET_PERIOD_SECONDS: '600',
    DIAGNOSIS_TIMEZONE: 'Asia/Shanghai',
  });
  const settings = parseTriggerSettings(process.env);
  const deps = await buildTriggerDeps(settings, () => clock, undefined, recorded.workflow);
  const composed = { ...deps, start: { ...deps.start, workflow: recorded.workflow } };
  webhook = createWebhookHandler(
    {
      ...composed,
      secrets: {
        alertmanagerToken: settings.ALERTMANAGER_WEBHOOK_TOKEN,
        pagerdutySecrets: settings.PAGERDUTY_WEBHOOK_SECRETS,
      },
    },
    createObservability('TriggerWebhook', () => undefined),
  );
  trigger = createTriggerHandler(
    composed,
    createObservability('Trigger', () => undefined),
  );
});
afterAll(async () => {
  await world?.cleanup();
  dynamo.destroy();
});

const runs = () => createDynamoRunStore({ client: dynamo, tableName: world.tableName, now: () => clock });

async function post(source: string, body: string, headers: Record<string, string>) {
  const event = httpEvent({
    path: `/triggers/${source}`,
    iam: false,
    body,
    headers,
    pathParameters: { source },
  });
  const response = (await webhook(event as never, lambdaContext(30_000))) as { statusCode: number; body: string };
  return { status: response.statusCode, body: JSON.parse(response.body) as Record<string, unknown> };
}
const alertmanager = (body: unknown) =>
  post('alertmanager', JSON.stringify(body), { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` });
const pagerduty = (body: string) =>
  post('pagerduty', body, {
    'content-type': 'application/json; charset=utf-8',
    'x-pagerduty-signature': `v1=${createHmac('sha256', SECRET).update(body).digest('hex')}`,
  });

/** Ends a run as the workflow would (claimed, then completed). */
async function endRun(runId: string) {
  await runs().claimQueuedRun(runId, clock);
  await runs().completeRun(runId, publishedOutcome());
}

async function getRun(runId: string) {
  const response = (await world.handlers.getRun(
    httpEvent({ method: 'GET', pathParameters: { runId } }),
    lambdaContext(10_000),
  )) as { statusCode: number; body: string };
  expect(response.statusCode).toBe(200);
  return JSON.parse(response.body) as { incidentEvents: { kind: string; sequence: number }[] };
}

// An Alertmanager group as its webhook receiver sends it: version 4, commonLabels, alerts firing and resolved.
const GROUP_KEY = '{}/{team="payments"}:{alertname="PaymentGatewayLatency"}';
const labels = { alertname: 'PaymentGatewayLatency', team: 'payments' };
const alert = (instance: string, startsAt: string, endsAt?: string) => ({
  status: endsAt === undefined ? 'firing' : 'resolved',
  labels: { ...labels, instance },
  annotations: { summary: 'payment-gateway p99 latency over 2 s' },
  startsAt,
  endsAt: endsAt ?? '0001-01-01T00:00:00Z',
  generatorURL: 'http://prometheus.example.com:9090/graph',
  fingerprint: `fp-${instance}`,
});
const notification = (alerts: ReturnType<typeof alert>[]) => ({
  receiver: 'diagnosis-agent',
  status: alerts.some((item) => item.status === 'firing') ? 'firing' : 'resolved',
  alerts,
  groupLabels: { alertname: labels.alertname },
  commonLabels: labels,
  commonAnnotations: { summary: 'payment-gateway p99 latency over 2 s' },
  externalURL: 'http://alertmanager.example.com:9093',
  version: '4',
  groupKey: GROUP_KEY,
  truncatedAlerts: 0,
});

describe('an Alertmanager group, notification by notification', () => {
  const a1 = '2026-11-30T06:04:00.000Z';
  const a2 = '2026-11-30T06:05:00.000Z';
  let runId = '';

  it('starts one run for the group’s first notification', async () => {
    const answer = await alertmanager(notification([alert('pg-1', a1), alert('pg-2', a2)]));
    expect(answer).toMatchObject({ status: 202, body: { outcome: 'STARTED', continued: false } });
    runId = String(answer.body.runId);
    expect(started).toEqual([runId]);
    expect((await runs().getRun(runId))?.trigger?.incidentKey).toBe(GROUP_KEY);
    await endRun(runId);
  });

  it('attaches the notification in which the group’s earliest alert resolved while another still fires', async () => {
    clock += 3_600_000;
    const mixed = notification([alert('pg-1', a1, '2026-11-30T07:05:00.000Z'), alert('pg-2', a2)]);
    expect(await alertmanager(mixed)).toEqual({
      status: 202,
      body: { outcome: 'ATTACHED', runId, sequence: 1, kind: 'FIRING' },
    });
  });

  it('attaches the next notification, without the resolved alert and with a new one joining', async () => {
    clock += 300_000;
    const joined = notification([alert('pg-2', a2), alert('pg-3', '2026-11-30T07:09:00.000Z')]);
    expect(await alertmanager(joined)).toMatchObject({ status: 202, body: { outcome: 'ATTACHED', runId } });
  });

  it('answers a byte-identical repeat 200 DUPLICATE and writes nothing', async () => {
    clock += 60_000;
    const joined = notification([alert('pg-2', a2), alert('pg-3', '2026-11-30T07:09:00.000Z')]);
    const before = await world.items();
    expect(await alertmanager(joined)).toEqual({ status: 200, body: { outcome: 'DUPLICATE' } });
    expect(await world.items()).toEqual(before);
    expect(started).toEqual([runId]);
  });

  it('attaches the same repeat hours later (past the replay window), never a second run for the open incident', async () => {
    clock += 4 * 3_600_000;
    const joined = notification([alert('pg-2', a2), alert('pg-3', '2026-11-30T07:09:00.000Z')]);
    expect(await alertmanager(joined)).toMatchObject({ status: 202, body: { outcome: 'ATTACHED', runId } });
    expect(started).toEqual([runId]);
  });

  it('records the group’s full resolution on the run', async () => {
    clock += 120_000;
    const resolved = notification([
      alert('pg-2', a2, '2026-11-30T11:15:00.000Z'),
      alert('pg-3', '2026-11-30T07:09:00.000Z', '2026-11-30T11:15:00.000Z'),
    ]);
    expect(await alertmanager(resolved)).toMatchObject({
      status: 202,
      body: { outcome: 'ATTACHED', kind: 'RESOLVED' },
    });
    const body = await getRun(runId);
    expect(body.incidentEvents.map((event) => [event.sequence, event.kind])).toEqual([
      [1, 'FIRING'],
      [2, 'FIRING'],
      [3, 'FIRING'],
      [4, 'RESOLVED'],
    ]);
    // The committed JSON Schema of the run resource holds for these events (the run's report is a synthetic one).
    expect(schemaErrors('run-resource', body).filter((error) => error.startsWith('/incidentEvents'))).toEqual([]);
  });

  it('starts a re-fire in the same session when the group fires again after the quiet period', async () => {
    clock += 900_000;
    const again = notification([alert('pg-1', '2026-11-30T11:31:00.000Z')]);
    const answer = await alertmanager(again);
    expect(answer).toMatchObject({ status: 202, body: { outcome: 'STARTED', continued: true } });
    expect(started).toEqual([runId, answer.body.runId]);
    expect((await runs().getRun(String(answer.body.runId)))?.sessionId).toBe((await runs().getRun(runId))?.sessionId);
  });
});

describe('a PagerDuty incident’s lifecycle', () => {
  const event = (type: string, id: string) => {
    const body = structuredClone(PAGERDUTY);
    body.event.id = id;
    body.event.event_type = type;
    body.event.occurred_at = new Date(clock - 5_000).toISOString();
    body.event.data.id = 'QLIFECYCLE0001';
    return JSON.stringify(body);
  };
  let runId = '';
  let triggered = '';

  it('starts a run for incident.triggered, and answers the retried delivery 200 DUPLICATE writing nothing', async () => {
    triggered = event('incident.triggered', '01LIFECYCLETRIGGERED000001');
    const answer = await pagerduty(triggered);
    expect(answer).toMatchObject({ status: 202, body: { outcome: 'STARTED' } });
    runId = String(answer.body.runId);
    const before = await world.items();
    expect(await pagerduty(triggered)).toEqual({ status: 200, body: { outcome: 'DUPLICATE' } });
    expect(await world.items()).toEqual(before);
  });

  it('still refuses a signed delivery replayed outside its time window as WEBHOOK_STALE, writing nothing', async () => {
    clock += 11 * 60_000;
    const before = await world.items();
    expect(await pagerduty(triggered)).toMatchObject({ status: 401, body: { error: { code: 'WEBHOOK_STALE' } } });
    expect(await world.items()).toEqual(before);
  });

  it('records incident.acknowledged and incident.resolved on the run', async () => {
    expect(await pagerduty(event('incident.acknowledged', '01LIFECYCLEACKNOWLEDGED001'))).toEqual({
      status: 202,
      body: { outcome: 'ATTACHED', runId, sequence: 1, kind: 'ACKNOWLEDGED' },
    });
    clock += 60_000;
    expect(await pagerduty(event('incident.resolved', '01LIFECYCLERESOLVED0000001'))).toEqual({
      status: 202,
      body: { outcome: 'ATTACHED', runId, sequence: 2, kind: 'RESOLVED' },
    });
    await endRun(runId);
  });

  it('treats incident.reopened as a re-fire: a new run in the same session once the quiet period passed', async () => {
    clock += 700_000;
    const answer = await pagerduty(event('incident.reopened', '01LIFECYCLEREOPENED0000001'));
    expect(answer).toMatchObject({ status: 202, body: { outcome: 'STARTED', continued: true } });
    expect(started.slice(-2)).toEqual([runId, answer.body.runId]);
    expect((await getRun(runId)).incidentEvents.map((item) => item.kind)).toEqual(['ACKNOWLEDGED', 'RESOLVED']);
  });

  it('ignores the acknowledgement of an incident it never opened, writing nothing but the event id', async () => {
    const body = JSON.parse(event('incident.acknowledged', '01LIFECYCLEUNKNOWN00000001'));
    body.event.data.id = 'QNEVERSEEN0001';
    const before = started.length;
    expect(await pagerduty(JSON.stringify(body))).toEqual({
      status: 202,
      body: { outcome: 'IGNORED', code: 'NO_INCIDENT' },
    });
    expect(started.length).toBe(before);
  });
});

describe('a CloudWatch alarm that stays in ALARM', () => {
  it('records the ALARM → ALARM update on the alarm’s run and starts nothing', async () => {
    clock = Date.parse(ALARM.time) + 60_000;
    const first = (await trigger(ALARM, lambdaContext(30_000))) as { outcome: string; runId: string };
    expect(first.outcome).toBe('STARTED');
    const update = structuredClone(ALARM);
    update.id = 'b2c3d4e5-0000-4000-8000-000000000001';
    update.detail.previousState = { ...update.detail.state };
    update.detail.state.timestamp = new Date(clock).toISOString();
    update.detail.state.reason = 'Threshold Crossed: 3 out of the last 3 datapoints were greater than the threshold.';
    const before = started.length;
    expect(await trigger(update, lambdaContext(30_000))).toEqual({
      outcome: 'ATTACHED',
      runId: first.runId,
      sequence: 1,
      kind: 'UPDATED',
    });
    expect(started.length).toBe(before);
    expect((await getRun(first.runId)).incidentEvents.map((item) => item.kind)).toEqual(['UPDATED']);
  });
});

describe('POST /triggers/{source} with a body that is not JSON', () => {
  it.each([
    ['no content type', undefined],
    ['text/plain', 'text/plain'],
    ['a form', 'application/x-www-form-urlencoded'],
    ['another charset', 'application/json; charset=iso-8859-1'],
    ['a look-alike type', 'application/jsonp'],
    ['JSON as the second type', 'text/html, application/json'],
  ])('refuses %s with 415 WEBHOOK_UNSUPPORTED_MEDIA_TYPE, writing nothing', async (_, contentType) => {
    const body = JSON.stringify(notification([alert('pg-9', '2026-11-30T06:04:00.000Z')]));
    for (const [source, credential] of [
      ['alertmanager', { authorization: `Bearer ${TOKEN}` }],
      ['pagerduty', { 'x-pagerduty-signature': `v1=${createHmac('sha256', SECRET).update(body).digest('hex')}` }],
    ] as const) {
      const before = await world.items();
      const startedBefore = started.length;
      const answer = await post(source, body, {
        ...credential,
        ...(contentType === undefined ? {} : { 'content-type': contentType }),
      });
      expect(answer).toEqual({
        status: 415,
        body: { error: { code: 'WEBHOOK_UNSUPPORTED_MEDIA_TYPE', message: expect.any(String) } },
      });
      expect(await world.items()).toEqual(before);
      expect(started.length).toBe(startedBefore);
    }
  });

  it('accepts JSON whatever the case of its media type and charset', async () => {
    const body = notification([alert('pg-9', '2026-11-30T06:04:00.000Z')]);
    body.commonLabels = { ...labels, team: 'billing' };
    const answer = await post('alertmanager', JSON.stringify(body), {
      'content-type': 'Application/JSON; Charset=UTF-8',
      authorization: `Bearer ${TOKEN}`,
    });
    expect(answer).toEqual({ status: 202, body: { outcome: 'IGNORED', code: 'UNMAPPED' } });
  });
});
