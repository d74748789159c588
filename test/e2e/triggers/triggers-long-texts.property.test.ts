/**
 * Long sender texts through the real trigger handlers on DynamoDB Local (issue 32 items 4 and 5): PagerDuty incident
 * titles of 300 to 2,000 characters (PagerDuty allows 1,024, its parser here 2,000), Alertmanager alert names and
 * summaries as long, CloudWatch state reasons of thousands of Chinese characters, under mappings' own question
 * templates. Every event is diagnosed: the stored title is cut on a character boundary and marked as cut, the attach
 * path keeps the same bound, and the question fits the query's UTF-8 byte limit with `{reason}` cut first. The texts
 * are synthetic (fast-check, fixed seeds); the workflow is a recorder (which runs started is what is asserted).
 */
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseTriggerSettings } from '@diagnosis/core/config';
import { createDynamoIncidentStore, createDynamoRunStore } from '@diagnosis/core/store';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createObservability } from '../../../functions/lambda/observability.ts';
import { createTriggerHandler } from '../../../functions/triggers/trigger-handler.ts';
import { buildTriggerDeps } from '../../../functions/triggers/trigger-setup.ts';
import { createWebhookHandler } from '../../../functions/triggers/webhook-handler.ts';
import { createTestTable, localDynamoClient } from '../../support/dynamodb.ts';
import { httpEvent, lambdaContext } from '../../support/lambda-events.ts';
import { recordingWorkflow } from '../../support/recording-workflow.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
const json = (path: string) => JSON.parse(readFileSync(resolve(ROOT, path), 'utf8'));
const PAGERDUTY = json('test/fixtures/triggers/pagerduty-incident-triggered.json');
const ALERTMANAGER = json('test/fixtures/triggers/alertmanager-firing.json');
const ALARM = json('examples/triggers/cloudwatch-alarm.json');
const TOKEN = 'am-token-long-texts-0123456789';
const SECRET = 'pd-secret-long-texts-0123456789';
const MAX_QUERY_BYTES = 4_096;
const TITLE_CAP = 256;
const CUT_MARK = '…';

/** Templates of the mappings: long Chinese text around the placeholders, within the deploy's check. */
const ALERTMANAGER_TEMPLATE = `${'告警背景说明'.repeat(60)}。告警「{alarm}」：{reason}。再述：{reason}。于 {startedAt}（{timezone}）`;
const CLOUDWATCH_TEMPLATE = `${'请结合日志与数据库诊断'.repeat(50)}。告警「{alarm}」于 {startedAt} 触发：{reason}`;

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
    DIAGNOSIS_TIMEZONE: 'Asia/Shanghai',
    DIAGNOSIS_MAX_QUERY_BYTES: String(MAX_QUERY_BYTES),
    // NOTE: the recorder never ends a run, so every run of the test stays open for the admission bound.
    TENANT_MAX_OPEN_RUNS: '1000',
    TRIGGERS: JSON.stringify([
      { source: 'pagerduty', serviceId: 'PF9KMXH', enterpriseId: 'E1001', service: 'payment-gateway' },
      { source: 'alertmanager', labels: { team: 'payments' }, enterpriseId: 'E1001', query: ALERTMANAGER_TEMPLATE },
      { source: 'cloudwatch', alarmNamePattern: 'E1001-*', enterpriseId: 'E1001', query: CLOUDWATCH_TEMPLATE },
    ]),
    ALERTMANAGER_WEBHOOK_TOKEN: TOKEN,
    PAGERDUTY_WEBHOOK_SECRETS: SECRET,
  });
  const deps = await buildTriggerDeps(settings, () => clock, dynamo, recorded.workflow);
  const silent = (name: string) => createObservability(name, () => undefined);
  webhook = createWebhookHandler(
    {
      ...deps,
      secrets: {
        alertmanagerToken: settings.ALERTMANAGER_WEBHOOK_TOKEN,
        pagerdutySecrets: settings.PAGERDUTY_WEBHOOK_SECRETS,
      },
    },
    silent('TriggerWebhook'),
  );
  trigger = createTriggerHandler(deps, silent('Trigger'));
});
afterAll(async () => {
  await table.drop();
  dynamo.destroy();
});

const runs = () => createDynamoRunStore({ client: dynamo, tableName: table.tableName });
const incidents = () => createDynamoIncidentStore({ client: dynamo, tableName: table.tableName });

async function post(source: 'alertmanager' | 'pagerduty', body: string) {
  const headers =
    source === 'alertmanager'
      ? { authorization: `Bearer ${TOKEN}` }
      : { 'x-pagerduty-signature': `v1=${createHmac('sha256', SECRET).update(body).digest('hex')}` };
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

/** Text of exactly `length` UTF-16 units: ASCII, Chinese, an emoji (a surrogate pair), spaces, line breaks. */
const textOf = (length: number) =>
  fc
    .array(fc.constantFrom('a', 'Z', '中', '文', '支付', '😀', ' ', '\n', '。', '%'), {
      minLength: length,
      maxLength: length,
    })
    .map((parts) => {
      const text = parts.join('').slice(0, length);
      // NOTE: a cut emoji would leave half a surrogate pair; the sender's JSON would not carry one.
      return (/[\uD800-\uDBFF]$/.test(text) ? `${text.slice(0, -1)}x` : text).padEnd(length, 'x');
    });
/** 300 and 2,000 characters always, any length between them besides. */
const longText = fc.oneof(fc.constant(300), fc.constant(2_000), fc.integer({ min: 257, max: 2_000 })).chain(textOf);
/** A reason of long Chinese text. */
const chineseReason = (maxLength: number) =>
  fc
    .integer({ min: 1_000, max: maxLength })
    .map((length) => '数据库连接池耗尽导致支付失败'.repeat(length).slice(0, length));

/** The stored title is the sender's, or its first characters marked as cut, never over the cap. */
function expectBoundedTitle(stored: string, original: string) {
  expect(stored.length).toBeLessThanOrEqual(TITLE_CAP);
  expect(stored.isWellFormed()).toBe(true);
  if (original.length <= TITLE_CAP) {
    expect(stored).toBe(original);
    return;
  }
  expect(stored.endsWith(CUT_MARK)).toBe(true);
  expect(original.startsWith(stored.slice(0, -CUT_MARK.length))).toBe(true);
}

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');
let counter = 0;

describe('a PagerDuty incident with a long title (issue 32 item 4)', () => {
  it('is diagnosed: the run stored with its title cut and marked, and a later event attached with the same bound', async () => {
    await fc.assert(
      fc.asyncProperty(longText, longText, async (title, laterTitle) => {
        counter += 1;
        const incident = structuredClone(PAGERDUTY);
        incident.event.id = `01LONGTITLE${String(counter).padStart(6, '0')}`;
        incident.event.data.id = `QLONG${counter}`;
        incident.event.data.title = title;
        const answer = await post('pagerduty', JSON.stringify(incident));
        expect(answer).toMatchObject({ status: 202, body: { outcome: 'STARTED' } });
        const run = await runs().getRun(String(answer.body.runId));
        expectBoundedTitle(run?.trigger?.title ?? '', title);
        expect(bytes(run?.query ?? '')).toBeLessThanOrEqual(MAX_QUERY_BYTES);
        expect(recorded.started).toContain(answer.body.runId);

        const later = structuredClone(incident);
        later.event.id = `01LONGLATER${String(counter).padStart(6, '0')}`;
        later.event.data.title = laterTitle;
        const attached = await post('pagerduty', JSON.stringify(later));
        expect(attached).toMatchObject({ status: 202, body: { outcome: 'ATTACHED', runId: answer.body.runId } });
        const [event] = await incidents().listIncidentEvents(String(answer.body.runId));
        expectBoundedTitle(event?.title ?? '', laterTitle);
      }),
      { numRuns: 12, seed: 3204, endOnFailure: true },
    );
  });
});

describe('an Alertmanager group with a long alert name and summary (issue 32 items 4 and 5)', () => {
  it('is diagnosed with its title bounded and the question cut to the query limit, {reason} first', async () => {
    await fc.assert(
      fc.asyncProperty(longText, chineseReason(2_000), async (alertname, summary) => {
        counter += 1;
        const group = structuredClone(ALERTMANAGER);
        group.groupKey = `{}/{team="payments"}:{alertname="long-${counter}"}`;
        group.commonLabels.alertname = alertname;
        group.commonAnnotations.summary = summary;
        const answer = await post('alertmanager', JSON.stringify(group));
        expect(answer).toMatchObject({ status: 202, body: { outcome: 'STARTED' } });
        const run = await runs().getRun(String(answer.body.runId));
        expectBoundedTitle(run?.trigger?.title ?? '', alertname);
        const query = run?.query ?? '';
        expect(bytes(query)).toBeLessThanOrEqual(MAX_QUERY_BYTES);
        expect(query.isWellFormed()).toBe(true);
        // The template's own text is all there; the reason was cut (and marked), the start time kept.
        expect(query.startsWith('告警背景说明'.repeat(60))).toBe(true);
        expect(query).toContain(`${CUT_MARK}。再述：`);
        expect(query).toContain('2026-11-30T14:04:58+08:00（Asia/Shanghai）');
      }),
      { numRuns: 12, seed: 3205, endOnFailure: true },
    );
  });
});

describe('a CloudWatch alarm with a long Chinese state reason under a long template (issue 32 item 5)', () => {
  it('is diagnosed with a question within the query limit, the reason cut on a character boundary', async () => {
    await fc.assert(
      fc.asyncProperty(chineseReason(16_384), fc.integer({ min: 1, max: 200 }), async (reason, nameLength) => {
        counter += 1;
        const alarm = structuredClone(ALARM);
        const alarmName = `E1001-${'告'.repeat(nameLength)}-${counter}`;
        alarm.id = `long-reason-${counter}`;
        alarm.resources = [`arn:aws:cloudwatch:cn-north-1:123456789012:alarm:${alarmName}`];
        alarm.detail.alarmName = alarmName;
        alarm.detail.state.reason = reason;
        const answer = (await trigger(alarm, lambdaContext(30_000))) as { outcome: string; runId: string };
        expect(answer).toMatchObject({ outcome: 'STARTED' });
        const run = await runs().getRun(answer.runId);
        const query = run?.query ?? '';
        expect(bytes(query)).toBeLessThanOrEqual(MAX_QUERY_BYTES);
        expect(query).toContain(`告警「${alarmName}」`);
        expect(query.endsWith(CUT_MARK)).toBe(true);
        const kept = query.slice(query.lastIndexOf('触发：') + 3, -CUT_MARK.length);
        expect(reason.startsWith(kept)).toBe(true);
        expect(kept.length).toBeGreaterThan(0);
      }),
      { numRuns: 10, seed: 3206, endOnFailure: true },
    );
  });
});
