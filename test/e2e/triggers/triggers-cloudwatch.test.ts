/**
 * An alarm starts the diagnosis (issue 21), through the real Trigger handler with CloudWatch Alarm State Change events
 * shaped as AWS documents them (hand-written fixtures: a metric alarm, a composite alarm, a recovery to OK, an alarm no
 * mapping takes), the real Diagnose handler as the workflow's task, DynamoDB Local, the example world's logs and a
 * scripted model on a loopback DeepSeek-format server. The trigger's clock is injected.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseTriggerSettings } from '@diagnosis/core/config';
import { createDynamoChangeStore, createDynamoIncidentStore, createDynamoRunStore } from '@diagnosis/core/store';
import { createLocalDiagnosisWorkflow } from '@diagnosis/devkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createObservability } from '../../../functions/lambda/observability.ts';
import { createTriggerHandler } from '../../../functions/triggers/trigger-handler.ts';
import { buildTriggerDeps } from '../../../functions/triggers/trigger-setup.ts';
import { wireText, wireToolCalls } from '../../support/deepseek-server.ts';
import { localDynamoClient } from '../../support/dynamodb.ts';
import { startE2eWorld } from '../../support/e2e-world.ts';
import { schemaErrors } from '../../support/json-schemas.ts';
import { httpEvent, lambdaContext } from '../../support/lambda-events.ts';
import { draftAnswer, noConclusionDraft, supportedDraft } from '../../support/run-fixtures.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
const fixture = (path: string) => JSON.parse(readFileSync(resolve(ROOT, path), 'utf8')) as Record<string, unknown>;
const ALARM = fixture('examples/triggers/cloudwatch-alarm.json');
const COMPOSITE = fixture('test/fixtures/triggers/cloudwatch-composite-alarm.json');
const RECOVERED = fixture('test/fixtures/triggers/cloudwatch-alarm-ok.json');
const UNMAPPED = fixture('test/fixtures/triggers/cloudwatch-alarm-unmapped.json');

/** The question's hint: how many of the enterprise's changes landed in the lookback. */
const changesHint = (count: number) =>
  `\n（提示，不是证据：回看窗口内到告警开始，本企业记录了 ${count} 条变更；可用 query_logs 的 service changes 查看。）`;

const MAPPINGS = [
  { source: 'cloudwatch', alarmNamePattern: 'E1001-payment-*', enterpriseId: 'E1001', service: 'payment-gateway' },
  {
    source: 'cloudwatch',
    alarmNamePattern: 'E1001-checkout-*',
    enterpriseId: 'E1001',
    query: '组合告警「{alarm}」于 {startedAt} 触发：{reason}',
    lookbackMinutes: 10,
  },
];

let world: Awaited<ReturnType<typeof startE2eWorld>>;
const dynamo = localDynamoClient();
/** The trigger's clock: two minutes after the alarm entered ALARM. */
let clock = Date.parse('2026-11-30T06:07:12.211Z');
let trigger: ReturnType<typeof createTriggerHandler>;
let workflow: ReturnType<typeof createLocalDiagnosisWorkflow>;
const logLines: string[] = [];
beforeAll(async () => {
  world = await startE2eWorld({ TRIGGERS: JSON.stringify(MAPPINGS), DIAGNOSIS_TIMEZONE: 'Asia/Shanghai' });
  workflow = createLocalDiagnosisWorkflow({
    invoke: (payload, context) => world.handlers.diagnose(payload, context),
    store: createDynamoRunStore({ client: dynamo, tableName: world.tableName }),
    logger: createObservability('OnWorkflowStopped', () => undefined).logger,
    delayScale: 0.01,
  });
  const deps = await buildTriggerDeps(parseTriggerSettings(process.env), () => clock, undefined, workflow);
  trigger = createTriggerHandler(
    { ...deps, start: { ...deps.start, workflow } },
    createObservability('Trigger', (line) => logLines.push(line)),
  );
});
afterAll(async () => {
  await world?.cleanup();
  dynamo.destroy();
});

const store = () => createDynamoRunStore({ client: dynamo, tableName: world.tableName });
const fire = async (event: unknown) =>
  (await trigger(event, lambdaContext(30_000))) as { outcome: string; runId?: string; code?: string };

describe('the Trigger function on CloudWatch alarm events', () => {
  it('starts a run for a mapped alarm: the tenant and question from the mapping, the window from the alarm, and enforces it', async () => {
    // The enterprise's changes: one in the lookback, one after the alarm began, and another enterprise's.
    const changes = createDynamoChangeStore({ client: dynamo, tableName: world.tableName });
    const recorded = (enterpriseId: string, eventId: string, at: string) => {
      const texts = { environment: null, ref: eventId, actor: null, summary: 'Argo CD synced', url: null };
      const origin = {
        source: 'webhook' as const,
        origin: 'argocd',
        service: 'payment-gateway',
        kind: 'deploy' as const,
      };
      return changes.record({ enterpriseId, eventId, at, receivedAt: at, ...origin, ...texts });
    };
    await recorded('E1001', 'in-lookback', '2026-11-30T06:01:40.000Z');
    await recorded('E1001', 'after-start', '2026-11-30T06:06:00.000Z');
    await recorded('E1002', 'other-enterprise', '2026-11-30T06:02:00.000Z');
    world.server.script.push(
      // Yesterday's logs: refused at the tool boundary.
      wireToolCalls([
        {
          id: 'call_yesterday',
          name: 'query_logs',
          arguments: {
            input: {
              service: 'payment-gateway',
              start_time: '2026-11-29T14:00:00+08:00',
              end_time: '2026-11-29T14:10:00+08:00',
              level: 'ERROR',
            },
          },
        },
      ]),
      // Inside the window: evidence.
      wireToolCalls([
        {
          id: 'call_inside',
          name: 'query_logs',
          arguments: {
            input: {
              service: 'payment-gateway',
              start_time: '2026-11-30T14:00:00+08:00',
              end_time: '2026-11-30T14:10:00+08:00',
              level: 'ERROR',
            },
          },
        },
      ]),
      wireText(draftAnswer(supportedDraft(['call_inside']))),
    );
    const before = world.server.requests.length;
    const answer = await fire(ALARM);
    expect(answer).toMatchObject({ outcome: 'STARTED', continued: false });
    await workflow.idle();
    const run = await store().getRun(answer.runId ?? '');
    expect(run).toMatchObject({
      enterpriseId: 'E1001',
      status: 'SUCCEEDED',
      continueSession: false,
      trigger: {
        source: 'cloudwatch',
        // The alarm's ARN: the alarm is the incident (a later transition into ALARM is its re-fire).
        incidentKey: 'arn:aws:cloudwatch:cn-north-1:123456789012:alarm:E1001-payment-gateway-5xx',
        eventId: '7f0c1b1e-3a2d-4c55-9e61-2b8d4a6f0e11',
        title: 'E1001-payment-gateway-5xx',
        startedAt: '2026-11-30T06:05:12.211Z',
      },
      window: { from: '2026-11-30T05:35:12.211Z', to: '2026-11-30T06:07:12.211Z' },
    });
    const detail = ALARM.detail as { state: { reason: string } };
    expect(run?.query).toBe(
      `CloudWatch 告警「E1001-payment-gateway-5xx」于 2026-11-30T14:05:12+08:00（Asia/Shanghai）进入 ALARM 状态。状态原因：${detail.state.reason.replace(/\.$/, '')}。相关服务：payment-gateway。请诊断原因，并给出证据。${changesHint(1)}`,
    );
    // The model was given exactly that query, and the window beside now.
    const messages = world.server.requests[before]?.messages as { role: string; content: string }[];
    const user = JSON.parse(messages.find((message) => message.role === 'user')?.content ?? '{}');
    expect(user.query).toBe(run?.query);
    expect(user.incident_window).toMatchObject({
      from: '2026-11-30T13:35:12+08:00',
      to: '2026-11-30T14:07:12+08:00',
    });
    const { records } = await store().listRunRecords(answer.runId ?? '');
    const tools = records.filter((record) => record.entity === 'tool_invocation');
    expect(tools.map((tool) => [tool.toolCallId, tool.disposition, tool.code, tool.status])).toEqual([
      ['call_inside', 'EXECUTED', null, 'READY'],
      ['call_yesterday', 'REJECTED', 'OUTSIDE_INCIDENT_WINDOW', null],
    ]);
    const inside = tools.find((tool) => tool.toolCallId === 'call_inside');
    expect(JSON.stringify(inside?.observation)).toContain('HikariPool-1');
  });

  it('attaches EventBridge’s redelivery of the same transition to the open run and starts nothing', async () => {
    clock += 1_000;
    world.server.script.push(wireText(JSON.stringify(noConclusionDraft())));
    const first = await fire({ ...COMPOSITE });
    expect(first.outcome).toBe('STARTED');
    const again = await fire({ ...COMPOSITE, id: 'e2f4b7a1-0c3d-4e5f-8a9b-1c2d3e4f5a6b' });
    expect(again).toMatchObject({ outcome: 'ATTACHED', runId: first.runId });
    const events = await createDynamoIncidentStore({ client: dynamo, tableName: world.tableName }).listIncidentEvents(
      first.runId ?? '',
    );
    expect(events.map((event) => [event.sequence, event.eventId])).toEqual([
      [1, 'e2f4b7a1-0c3d-4e5f-8a9b-1c2d3e4f5a6b'],
    ]);
    // The composite alarm's own template and lookback.
    const run = await store().getRun(first.runId ?? '');
    // The sender's text is masked with the run's key like any evidence (issue 32, item 10): the account of the ARN
    // in the reason is a pseudonym, the rest as the alarm wrote it.
    const reason = (COMPOSITE.detail as { state: { reason: string } }).state.reason;
    const literal = `组合告警「E1001-checkout-degraded」于 2026-11-30T14:06:30+08:00 触发：${reason}${changesHint(2)}`;
    // (both of E1001's changes above landed in this alarm's lookback, 05:56:30–06:06:30)
    expect(run?.query).toMatch(
      new RegExp(
        `^${literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace('123456789012', '<aws_account:[a-z2-7]{5}>')}$`,
      ),
    );
    expect(run?.window?.from).toBe('2026-11-30T05:56:30.402Z');
    await workflow.idle();
    expect((await store().getRun(first.runId ?? ''))?.status).toBe('SUCCEEDED');
  });

  it('shows the attached events on GET /runs/{id}', async () => {
    const itemsBefore = (await world.items()).length;
    const first = await fire({ ...COMPOSITE });
    expect(first.outcome).toBe('ATTACHED');
    const response = (await world.handlers.getRun(
      httpEvent({ method: 'GET', pathParameters: { runId: first.runId ?? '' } }),
      lambdaContext(10_000),
    )) as { statusCode: number; body: string };
    const body = JSON.parse(response.body);
    expect(response.statusCode).toBe(200);
    expect(body.trigger).toMatchObject({ source: 'cloudwatch', title: 'E1001-checkout-degraded' });
    expect(body.incidentEvents).toHaveLength(2);
    // The committed JSON Schema of the run resource holds for a triggered run too.
    expect(schemaErrors('run-resource', body)).toEqual([]);
    expect((await world.items()).length).toBe(itemsBefore + 1);
  });

  it('starts nothing for an alarm no mapping takes, and counts it', async () => {
    const itemsBefore = await world.items();
    logLines.splice(0);
    expect(await fire(UNMAPPED)).toEqual({ outcome: 'IGNORED', code: 'UNMAPPED' });
    expect(await world.items()).toEqual(itemsBefore);
    const emf = logLines.map((line) => JSON.parse(line)).find((line) => line._aws !== undefined);
    expect(emf).toMatchObject({ TriggerUnmapped: 1, TriggerEvents: 1, outcome: 'IGNORED' });
  });

  it('starts nothing for a recovery to OK, a malformed event, or a tenant named inside the alarm', async () => {
    const itemsBefore = await world.items();
    expect(await fire(RECOVERED)).toEqual({ outcome: 'IGNORED', code: 'NOT_FIRING' });
    expect(await fire({ ...ALARM, source: 'aws.states' })).toEqual({ outcome: 'IGNORED', code: 'MALFORMED_EVENT' });
    expect(await fire('not an event')).toEqual({ outcome: 'IGNORED', code: 'MALFORMED_EVENT' });
    const detail = UNMAPPED.detail as Record<string, unknown>;
    // An alarm whose name or description claims another enterprise: still unmapped, never that enterprise's run.
    const claiming = {
      ...UNMAPPED,
      detail: { ...detail, alarmName: 'E2002 payment', configuration: { description: 'enterpriseId=E2002' } },
    };
    expect(await fire(claiming)).toEqual({ outcome: 'IGNORED', code: 'UNMAPPED' });
    expect(await world.items()).toEqual(itemsBefore);
  });

  it('refuses an incident that began more than the longest window ago as STALE', async () => {
    const itemsBefore = await world.items();
    const old = JSON.parse(JSON.stringify(ALARM));
    old.detail.state.timestamp = '2026-11-20T06:05:12.211+0000';
    expect(await fire(old)).toEqual({ outcome: 'IGNORED', code: 'STALE' });
    expect(await world.items()).toEqual(itemsBefore);
  });
});

describe('POST /diagnoses with a window', () => {
  const start = async (body: Record<string, unknown>) => {
    const response = (await world.handlers.startDiagnosis(
      httpEvent({ body: JSON.stringify(body) }),
      lambdaContext(30_000),
    )) as { statusCode: number; body: string };
    return { status: response.statusCode, body: JSON.parse(response.body) };
  };
  const request = { sessionId: 'window-api', enterpriseId: 'E1001', query: 'E1001 的订单为什么失败？' };

  it.each([
    ['from after to', { from: '2026-11-30T07:00:00Z', to: '2026-11-30T06:00:00Z' }],
    ['no offset', { from: '2026-11-30T06:00:00', to: '2026-11-30T07:00:00Z' }],
    ['longer than 7 days', { from: '2026-11-01T06:00:00Z', to: '2026-11-30T07:00:00Z' }],
    ['an extra field', { from: '2026-11-30T06:00:00Z', to: '2026-11-30T07:00:00Z', zone: 'x' }],
    ['not a date', { from: '2026-13-30T06:00:00Z', to: '2026-11-30T07:00:00Z' }],
  ])('refuses a window with %s, writing nothing', async (_, window) => {
    const itemsBefore = (await world.items()).length;
    const answer = await start({ ...request, window });
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('INVALID_REQUEST');
    expect((await world.items()).length).toBe(itemsBefore);
  });

  it('stores a valid window in UTC and enforces it on the run', async () => {
    world.server.script.push(
      wireToolCalls([
        {
          id: 'call_out',
          name: 'query_logs',
          arguments: {
            input: { service: 'payment-gateway', start_time: '2026-11-29T06:00:00Z', end_time: '2026-11-29T07:00:00Z' },
          },
        },
      ]),
      wireText(JSON.stringify(noConclusionDraft())),
    );
    const answer = await start({
      ...request,
      runId: `window-${Date.now().toString(36)}`,
      window: { from: '2026-11-30T13:30:00+08:00', to: '2026-11-30T14:30:00+08:00' },
    });
    expect(answer.status).toBe(202);
    // The workflow's execution, not the stored status: the status is final before the invocation ends.
    await world.workflow.idle();
    const run = await store().getRun(answer.body.runId);
    expect(run?.window).toEqual({ from: '2026-11-30T05:30:00.000Z', to: '2026-11-30T06:30:00.000Z' });
    const { records } = await store().listRunRecords(answer.body.runId);
    expect(records.find((record) => record.entity === 'tool_invocation')).toMatchObject({
      disposition: 'REJECTED',
      code: 'OUTSIDE_INCIDENT_WINDOW',
    });
  });
});
