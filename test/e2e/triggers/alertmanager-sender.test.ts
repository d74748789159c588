/**
 * A real Alertmanager drives the webhook route (issue 32): Debian's `prometheus-alertmanager`, installed by this
 * file's setup when missing (skipped, loudly, only when it cannot be), its webhook receiver pointed at the real
 * webhook handler through a loopback HTTP server that hands each request over as API Gateway's v2 event. Alerts are
 * posted to its v2 API as Prometheus posts them: two groups, a new alert joining one, repeats of an unchanged group
 * (short group and repeat intervals), its earliest alert resolving while the others fire, then the whole group
 * resolving, and — its run ended — the group firing again. Every notification Alertmanager sends must be answered 2xx (a 4xx is unrecoverable to it and logged as a
 * failed notify), and each group gets exactly one run. The handler reads the real clock: Alertmanager's times are
 * real. Nothing sleeps to synchronise: each step polls, with a bound, what Alertmanager sent.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { parseTriggerSettings } from '@diagnosis/core/config';
import { createDynamoIncidentStore, createDynamoRunStore } from '@diagnosis/core/store';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createObservability } from '../../../functions/lambda/observability.ts';
import { buildTriggerDeps } from '../../../functions/triggers/trigger-setup.ts';
import { createWebhookHandler } from '../../../functions/triggers/webhook-handler.ts';
import { findOrInstallAlertmanager, type RunningAlertmanager, startAlertmanager } from '../../support/alertmanager.ts';
import { publishedOutcome } from '../../support/audit-events.ts';
import { createTestTable, localDynamoClient } from '../../support/dynamodb.ts';
import { httpEvent, lambdaContext } from '../../support/lambda-events.ts';
import { recordingWorkflow } from '../../support/recording-workflow.ts';

const found = findOrInstallAlertmanager();
if ('missing' in found) {
  const message = `Alertmanager e2e SKIPPED: ${found.missing} (apt-get install prometheus-alertmanager)`;
  if (process.env.CI !== undefined) throw new Error(`${message}; CI installs it (.ci/run)`);
  console.warn(message);
}

const TOKEN = 'am-real-token-0123456789abcdef';

/** One notification Alertmanager sent, and what the handler answered. */
interface Exchange {
  notification: {
    status: string;
    groupKey: string;
    alerts: { status: string; labels: Record<string, string>; startsAt: string }[];
  };
  headers: Record<string, string>;
  status: number;
  answer: {
    outcome?: string;
    runId?: string;
    kind?: string;
    code?: string;
    continued?: boolean;
    error?: { code: string };
  };
}

describe.skipIf('missing' in found)('Debian’s Alertmanager as the sender', () => {
  const dynamo = localDynamoClient();
  const { workflow, started } = recordingWorkflow();
  const exchanges: Exchange[] = [];
  let table: Awaited<ReturnType<typeof createTestTable>>;
  let server: Server;
  let alertmanager: RunningAlertmanager;

  beforeAll(async () => {
    table = await createTestTable(dynamo);
    const settings = parseTriggerSettings({
      DIAGNOSIS_TABLE_NAME: table.tableName,
      DYNAMODB_ENDPOINT: inject('dynamodbEndpoint'),
      TRIGGERS: JSON.stringify([{ source: 'alertmanager', labels: { team: 'payments' }, enterpriseId: 'E1001' }]),
      ALERTMANAGER_WEBHOOK_TOKEN: TOKEN,
      // No quiet period: a group that resolved and fires again after its run ended is diagnosed again at once.
      TRIGGER_QUIET_PERIOD_SECONDS: '0',
    });
    const deps = await buildTriggerDeps(settings, () => Date.now(), undefined, workflow);
    const handler = createWebhookHandler(
      {
        ...deps,
        start: { ...deps.start, workflow },
        secrets: { alertmanagerToken: settings.ALERTMANAGER_WEBHOOK_TOKEN, pagerdutySecrets: undefined },
      },
      createObservability('TriggerWebhook', () => undefined),
    );
    // The loopback "API Gateway": each request as an HTTP API v2 event (headers lower-cased, the body as text).
    server = createServer((request, response) => {
      void (async () => {
        const body = await readBody(request);
        const headers = Object.fromEntries(
          Object.entries(request.headers).map(([name, value]) => [name, [value].flat().join(',')]),
        );
        const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
        const source = path.split('/')[2] ?? '';
        const event = httpEvent({
          method: request.method ?? 'GET',
          path,
          iam: false,
          body,
          headers,
          pathParameters: { source },
        });
        const answer = (await handler(event as never, lambdaContext(30_000))) as { statusCode: number; body: string };
        exchanges.push({
          notification: JSON.parse(body),
          headers,
          status: answer.statusCode,
          answer: JSON.parse(answer.body),
        });
        response.writeHead(answer.statusCode, { 'content-type': 'application/json' }).end(answer.body);
      })();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    if (!('binary' in found)) throw new Error('unreachable: the suite is skipped without Alertmanager');
    alertmanager = await startAlertmanager(
      found.binary,
      [
        'route:',
        '  receiver: diagnosis',
        "  group_by: ['alertname', 'team']",
        '  group_wait: 1s',
        '  group_interval: 2s',
        '  repeat_interval: 3s',
        'receivers:',
        '  - name: diagnosis',
        '    webhook_configs:',
        `      - url: http://127.0.0.1:${port}/triggers/alertmanager`,
        '        send_resolved: true',
        '        http_config:',
        '          authorization:',
        '            type: Bearer',
        `            credentials: ${TOKEN}`,
        '',
      ].join('\n'),
    );
  }, 60_000);

  afterAll(async () => {
    await alertmanager?.stop();
    await new Promise((resolve) => server?.close(resolve));
    await table?.drop();
    dynamo.destroy();
  });

  /** Polls what Alertmanager sent until `predicate` holds (at most `boundMs`); fails naming `what` otherwise. */
  async function sent(what: string, predicate: (exchange: Exchange, index: number) => boolean, boundMs = 30_000) {
    const deadline = Date.now() + boundMs;
    for (;;) {
      const index = exchanges.findIndex(predicate);
      if (index >= 0) return { exchange: exchanges[index] as Exchange, index };
      if (Date.now() > deadline) {
        throw new Error(`Alertmanager sent no ${what} within ${boundMs} ms; log: ${alertmanager.log().slice(-3_000)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  const instances = (exchange: Exchange, status: string) =>
    exchange.notification.alerts
      .filter((alert) => alert.status === status)
      .map((alert) => alert.labels.instance)
      .sort();
  const ofGroup = (alertname: string) => (exchange: Exchange) =>
    exchange.notification.groupKey.includes(`alertname="${alertname}"`);

  const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
  const latency = (instance: string, startsAt: string, endsAt?: string) => ({
    labels: { alertname: 'PaymentGatewayLatency', team: 'payments', severity: 'critical', instance },
    annotations: { summary: 'payment-gateway p99 latency over 2 s' },
    startsAt,
    ...(endsAt === undefined ? {} : { endsAt }),
  });
  const startsAt = { pg1: minutesAgo(3), pg2: minutesAgo(2), pg3: minutesAgo(1) };

  it('groups the alerts: one run per group', async () => {
    await alertmanager.postAlerts([
      latency('pg-1', startsAt.pg1),
      latency('pg-2', startsAt.pg2),
      {
        labels: { alertname: 'PaymentGatewayErrors', team: 'payments', instance: 'pg-1' },
        annotations: { summary: 'payment-gateway 5xx over 5%' },
        startsAt: startsAt.pg1,
      },
    ]);
    // The group's first notification starts its run, whatever it holds: under load Alertmanager's dispatcher can take
    // the second posted alert after the group's wait has elapsed, and flush the group with one alert first.
    const first = await sent('first notification of the latency group', ofGroup('PaymentGatewayLatency'));
    expect(first.exchange.headers).toMatchObject({
      authorization: `Bearer ${TOKEN}`,
      'content-type': 'application/json',
      'user-agent': expect.stringMatching(/^Alertmanager\//),
    });
    expect(first.exchange).toMatchObject({ status: 202, answer: { outcome: 'STARTED' } });
    const both = await sent(
      'notification of the latency group with both alerts',
      (exchange) => ofGroup('PaymentGatewayLatency')(exchange) && instances(exchange, 'firing').length === 2,
    );
    expect(both.exchange.answer.runId).toBe(first.exchange.answer.runId);
    if (both.index !== first.index) {
      expect(both.exchange).toMatchObject({ status: 202, answer: { outcome: 'ATTACHED', kind: 'FIRING' } });
    }
    const errors = await sent('notification of the errors group', ofGroup('PaymentGatewayErrors'));
    expect(errors.exchange).toMatchObject({ status: 202, answer: { outcome: 'STARTED' } });
    expect(started).toHaveLength(2);
  });

  it('answers the byte-identical repeats of an unchanged group 200 DUPLICATE', async () => {
    const repeat = await sent('repeat notification', (exchange) => exchange.answer.outcome === 'DUPLICATE');
    expect(repeat.exchange.status).toBe(200);
  });

  it('attaches a new alert joining the group to the group’s run', async () => {
    await alertmanager.postAlerts([latency('pg-3', startsAt.pg3)]);
    const joined = await sent(
      'notification with the joining alert',
      (exchange) => ofGroup('PaymentGatewayLatency')(exchange) && instances(exchange, 'firing').includes('pg-3'),
    );
    expect(joined.exchange).toMatchObject({ status: 202, answer: { outcome: 'ATTACHED', kind: 'FIRING' } });
    expect(started).toHaveLength(2);
  });

  it('attaches the group’s notifications after its earliest alert resolved while the others fire', async () => {
    await alertmanager.postAlerts([latency('pg-1', startsAt.pg1, new Date().toISOString())]);
    const mixed = await sent(
      'notification mixing the resolved earliest alert and firing ones',
      (exchange) => ofGroup('PaymentGatewayLatency')(exchange) && instances(exchange, 'resolved').includes('pg-1'),
    );
    expect(mixed.exchange.notification.status).toBe('firing');
    expect(instances(mixed.exchange, 'firing')).toEqual(['pg-2', 'pg-3']);
    expect(mixed.exchange).toMatchObject({ status: 202, answer: { outcome: 'ATTACHED' } });
    // Alertmanager then drops the resolved alert: its next notification of the group (a repeat) holds only the others.
    const after = await sent(
      'notification of the group without its resolved alert',
      (exchange, index) =>
        index > mixed.index &&
        ofGroup('PaymentGatewayLatency')(exchange) &&
        exchange.notification.alerts.every((alert) => alert.labels.instance !== 'pg-1'),
    );
    expect(after.exchange.status).toBe(202);
    expect(after.exchange.answer).toMatchObject({ outcome: 'ATTACHED' });
    expect(started).toHaveLength(2);
  });

  it('records the group’s full resolution on its run', async () => {
    const now = new Date().toISOString();
    await alertmanager.postAlerts([latency('pg-2', startsAt.pg2, now), latency('pg-3', startsAt.pg3, now)]);
    const resolved = await sent(
      'resolved notification of the group',
      (exchange) => ofGroup('PaymentGatewayLatency')(exchange) && exchange.notification.status === 'resolved',
    );
    expect(resolved.exchange).toMatchObject({ status: 202, answer: { outcome: 'ATTACHED', kind: 'RESOLVED' } });
    const runId = resolved.exchange.answer.runId ?? '';
    const events = await createDynamoIncidentStore({ client: dynamo, tableName: table.tableName }).listIncidentEvents(
      runId,
    );
    expect(events.at(-1)?.kind).toBe('RESOLVED');
    expect(new Set(events.slice(0, -1).map((event) => event.kind))).toEqual(new Set(['FIRING']));
  });

  it('answered every notification Alertmanager sent 2xx, and started exactly one run per group', () => {
    expect(exchanges.length).toBeGreaterThanOrEqual(6);
    expect(exchanges.filter((exchange) => exchange.status < 200 || exchange.status > 299)).toEqual([]);
    const runOf = new Map<string, Set<string>>();
    for (const { notification, answer } of exchanges) {
      if (answer.runId === undefined) continue;
      runOf.set(notification.groupKey, (runOf.get(notification.groupKey) ?? new Set()).add(answer.runId));
    }
    expect([...runOf.values()].map((runs) => runs.size)).toEqual([1, 1]);
    expect(started).toHaveLength(2);
    expect(alertmanager.log()).not.toMatch(/Notify for alerts failed/);
  });

  it('diagnoses the group again, in the same session, when it fires again after it resolved and its run ended', async () => {
    const latencyRun = exchanges.find(
      (exchange) => ofGroup('PaymentGatewayLatency')(exchange) && exchange.answer.outcome === 'STARTED',
    )?.answer.runId;
    const runs = createDynamoRunStore({ client: dynamo, tableName: table.tableName });
    await runs.claimQueuedRun(latencyRun ?? '', Date.now());
    await runs.completeRun(latencyRun ?? '', publishedOutcome());
    const sentBefore = exchanges.length;
    await alertmanager.postAlerts([latency('pg-1', new Date().toISOString())]);
    const refire = await sent(
      'notification of the group firing again',
      (exchange, index) =>
        index >= sentBefore && ofGroup('PaymentGatewayLatency')(exchange) && exchange.notification.status === 'firing',
    );
    expect(refire.exchange).toMatchObject({ status: 202, answer: { outcome: 'STARTED', continued: true } });
    expect(started).toEqual([expect.any(String), expect.any(String), refire.exchange.answer.runId]);
    const [first, second] = await Promise.all(
      [latencyRun ?? '', refire.exchange.answer.runId ?? ''].map((runId) => runs.getRun(runId)),
    );
    expect(second?.sessionId).toBe(first?.sessionId);
    expect(exchanges.filter((exchange) => exchange.status < 200 || exchange.status > 299)).toEqual([]);
  });
});

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
