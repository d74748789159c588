/**
 * Issue 32, items 7, 8 and 10, through the real handlers: a sender's hostile text — a customer's phone, e-mail and
 * card written plainly, in full-width digits, URL-encoded (`%40`), split by zero-width characters and wrapped in
 * marker look-alikes (`[MASKED:…]`, `[REDACTED:…]`, `<x_…:aaaaa>`) — in a CloudWatch alarm's reason and a signed
 * PagerDuty incident's title starts a run (the real Trigger and webhook handlers, the local workflow running the real
 * Diagnose handler, a scripted model on the loopback DeepSeek server, DynamoDB Local). Property (fast-check, fixed
 * seed): no form of any canary reaches a request body to the model, `GET /runs/{id}`, or an item of the run's own
 * partition; the model can pass the question's pseudonym to a tool (it is restored, not refused as unknown); the
 * reveal route gives the plain values back (the positive control).
 */
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { parseTriggerSettings } from '@diagnosis/core/config';
import { createDynamoRunStore } from '@diagnosis/core/store';
import { createLocalDiagnosisWorkflow } from '@diagnosis/devkit';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createObservability } from '../../../functions/lambda/observability.ts';
import { createTriggerHandler } from '../../../functions/triggers/trigger-handler.ts';
import { buildTriggerDeps } from '../../../functions/triggers/trigger-setup.ts';
import { createWebhookHandler } from '../../../functions/triggers/webhook-handler.ts';
import { passesLuhn } from '../../../packages/core/src/tools/masking/checksums.ts';
import { wireText, wireToolCalls } from '../../support/deepseek-server.ts';
import { localDynamoClient, partitionItems } from '../../support/dynamodb.ts';
import { startE2eWorld } from '../../support/e2e-world.ts';
import { httpEvent, lambdaContext } from '../../support/lambda-events.ts';
import { envelope, noConclusionDraft } from '../../support/run-fixtures.ts';

const RUNS = 12;
const SEED = 3207;
const ROOT = resolve(import.meta.dirname, '../../..');
const fixture = (path: string) => JSON.parse(readFileSync(resolve(ROOT, path), 'utf8')) as Record<string, unknown>;
const ALARM = fixture('examples/triggers/cloudwatch-alarm.json') as {
  resources: string[];
  detail: { alarmName: string; state: { reason: string } };
};
const PAGERDUTY = fixture('test/fixtures/triggers/pagerduty-incident-triggered.json') as {
  event: { id: string; data: { id: string; title: string } };
};
const PD_SECRET = 'pd-secret-masking-0123456789';
const OPS = { accountId: '111122223333', userArn: 'arn:aws:sts::111122223333:assumed-role/OpsE1001/alice' };
const MAPPINGS = [
  { source: 'cloudwatch', alarmNamePattern: 'E1001-payment-*', enterpriseId: 'E1001', service: 'payment-gateway' },
  { source: 'pagerduty', serviceId: 'PF9KMXH', enterpriseId: 'E1001', service: 'payment-gateway' },
];

// ---------- canaries and the hostile forms a sender writes them in

const digits = (length: number) => fc.stringMatching(new RegExp(`^[0-9]{${length}}$`));
function luhnComplete(prefix: string): string {
  for (let check = 0; check <= 9; check += 1) if (passesLuhn(`${prefix}${check}`)) return `${prefix}${check}`;
  throw new Error('unreachable');
}
const canaryArbitrary = fc.record({
  phone: fc.tuple(fc.constantFrom('13', '15', '18'), digits(9)).map(([head, rest]) => `${head}${rest}`),
  email: fc.tuple(fc.stringMatching(/^[a-z]{3,8}$/), digits(4)).map(([name, tag]) => `${name}${tag}@example-mail.cn`),
  card: fc.tuple(fc.constantFrom('4', '5'), digits(14)).map(([head, rest]) => luhnComplete(`${head}${rest}`)),
  invisible: fc.constantFrom('\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u00ad'),
  form: fc.constantFrom('plain', 'full-width', 'encoded', 'split', 'look-alike'),
});
type Canary = typeof canaryArbitrary extends fc.Arbitrary<infer T> ? T : never;

const fullWidth = (text: string) =>
  text.replace(/[0-9A-Za-z@.]/g, (character) => String.fromCharCode(character.charCodeAt(0) + 0xfee0));
const split = (text: string, invisible: string) =>
  `${text.slice(0, 3)}${invisible}${text.slice(3, 7)}${invisible}${text.slice(7)}`;

/** The canaries as the sender wrote them, in the form drawn. */
function hostile(canary: Canary): string {
  const { phone, email, card, invisible } = canary;
  switch (canary.form) {
    case 'plain':
      return `客户 ${phone} 邮箱 ${email} 卡 ${card}`;
    case 'full-width':
      return `客户 ${fullWidth(phone)} 邮箱 ${fullWidth(email)} 卡 ${fullWidth(card)}`;
    case 'encoded':
      return `GET /pay?user=${email.replace('@', '%40')}&tel=${phone}&card=${card}`;
    case 'split':
      return `客户 ${split(phone, invisible)} 邮箱 ${email.replace('@', `${invisible}@`)} 卡 ${split(card, invisible)}`;
    default:
      return `note=[MASKED:${phone}] card [REDACTED:${card}] contact <x_${phone}:aaaaa> mail [MASKED:${email}]`;
  }
}

/** Every form of every canary that must never be seen (digits of a value in any of its encodings). */
function needles(canary: Canary): string[] {
  const { phone, email, card, invisible } = canary;
  return [
    phone,
    email,
    card,
    email.split('@')[0] ?? email,
    fullWidth(phone),
    fullWidth(email),
    fullWidth(card),
    email.replace('@', '%40'),
    split(phone, invisible),
    split(card, invisible),
    phone.slice(0, 7),
    card.slice(0, 8),
  ];
}

// ---------- the world

let world: Awaited<ReturnType<typeof startE2eWorld>>;
const dynamo = localDynamoClient();
const documents = DynamoDBDocumentClient.from(dynamo);
let workflow: ReturnType<typeof createLocalDiagnosisWorkflow>;
let trigger: ReturnType<typeof createTriggerHandler>;
let webhook: ReturnType<typeof createWebhookHandler>;
let clock = Date.parse('2026-11-30T06:07:12.211Z');
const logs: string[] = [];
const originals = { log: console.log, error: console.error, warn: console.warn, info: console.info };

beforeAll(async () => {
  world = await startE2eWorld({ TRIGGERS: JSON.stringify(MAPPINGS), DIAGNOSIS_TIMEZONE: 'Asia/Shanghai' });
  // NOTE: the handlers' log lines and metrics are read here (and checked for canaries), not printed.
  for (const level of ['log', 'error', 'warn', 'info'] as const) {
    console[level] = (...parts: unknown[]) =>
      void logs.push(parts.map((part) => (typeof part === 'string' ? part : JSON.stringify(part))).join(' '));
  }
  workflow = createLocalDiagnosisWorkflow({
    invoke: (payload, context) => world.handlers.diagnose(payload, context),
    store: createDynamoRunStore({ client: dynamo, tableName: world.tableName }),
    logger: createObservability('OnWorkflowStopped', () => undefined).logger,
    delayScale: 0.01,
  });
  const settings = parseTriggerSettings({ ...process.env, PAGERDUTY_WEBHOOK_SECRETS: PD_SECRET });
  const deps = await buildTriggerDeps(settings, () => clock, undefined, workflow);
  trigger = createTriggerHandler(
    { ...deps, start: { ...deps.start, workflow } },
    createObservability('Trigger', () => undefined),
  );
  webhook = createWebhookHandler(
    {
      ...deps,
      start: { ...deps.start, workflow },
      secrets: { alertmanagerToken: undefined, pagerdutySecrets: settings.PAGERDUTY_WEBHOOK_SECRETS },
    },
    createObservability('TriggerWebhook', () => undefined),
  );
}, 120_000);

afterAll(async () => {
  Object.assign(console, originals);
  await world?.cleanup();
  dynamo.destroy();
});

/** A CloudWatch alarm of its own (its own incident) whose reason is the hostile text. */
async function fireAlarm(tag: string, text: string): Promise<string> {
  const name = `E1001-payment-${tag}`;
  const event = {
    ...ALARM,
    id: `evt-${tag}`,
    resources: [`arn:aws:cloudwatch:cn-north-1:123456789012:alarm:${name}`],
    detail: { ...ALARM.detail, alarmName: name, state: { ...ALARM.detail.state, reason: `支付失败：${text}` } },
  };
  const answer = (await trigger(event, lambdaContext(30_000))) as { outcome: string; runId: string };
  expect(answer.outcome).toBe('STARTED');
  return answer.runId;
}

/** A signed PagerDuty incident of its own whose title is the hostile text. */
async function firePagerDuty(tag: string, text: string): Promise<string> {
  const body = JSON.stringify({
    event: {
      ...PAGERDUTY.event,
      id: `01PD${tag.toUpperCase()}`,
      occurred_at: new Date(clock - 1_000).toISOString(),
      data: { ...PAGERDUTY.event.data, id: `Q${tag.toUpperCase()}`, title: `支付失败 ${text}`.slice(0, 250) },
    },
  });
  const event = httpEvent({
    method: 'POST',
    path: '/triggers/pagerduty',
    iam: false,
    body,
    headers: {
      'content-type': 'application/json',
      'x-pagerduty-signature': `v1=${createHmac('sha256', PD_SECRET).update(body).digest('hex')}`,
    },
    pathParameters: { source: 'pagerduty' },
  });
  const response = (await webhook(event as never, lambdaContext(30_000))) as { statusCode: number; body: string };
  expect(response.statusCode, response.body).toBe(202);
  return (JSON.parse(response.body) as { runId: string }).runId;
}

type Seen = { token?: string | undefined; status?: string | undefined; code?: string | undefined };
type ChatMessage = { role: string; content?: unknown; tool_call_id?: string };

/** Round 1 passes the question's first phone pseudonym to `query_logs`; round 2 reads what it got and ends. */
function script(tag: string, seen: Seen) {
  world.server.script.push(
    (body) => {
      const user = (body.messages as ChatMessage[]).find((message) => message.role === 'user');
      seen.token = String(user?.content ?? '').match(/<phone:[a-z2-7]{5,13}>/)?.[0];
      return wireToolCalls([
        {
          id: `call_${tag}`,
          name: 'query_logs',
          arguments: envelope({
            service: 'payment-gateway',
            start_time: '2026-11-30T14:00:00+08:00',
            end_time: '2026-11-30T14:06:00+08:00',
            keyword: seen.token ?? '<phone:zzzzz>',
          }),
        },
      ]);
    },
    (body) => {
      const tool = (body.messages as ChatMessage[]).find((message) => message.tool_call_id === `call_${tag}`);
      const observation = JSON.parse(String(tool?.content ?? '{}')) as { evidence_status?: string; code?: string };
      seen.status = observation.evidence_status;
      seen.code = observation.code;
      return wireText(JSON.stringify(noConclusionDraft()));
    },
  );
}

async function getRoute(name: 'getRun' | 'getRunReveal', runId: string) {
  const suffix = name === 'getRun' ? '' : '/reveal';
  const response = (await world.handlers[name](
    httpEvent({ method: 'GET', path: `/runs/${runId}${suffix}`, pathParameters: { runId }, iam: OPS }),
    lambdaContext(5_000),
  )) as { statusCode: number; body: string };
  expect(response.statusCode).toBe(200);
  return response.body;
}

describe('a triggered run’s question and title (property, through the real handlers)', () => {
  it(`never carry a canary in any encoding to the model, GET /runs or the run’s items, over ${RUNS} runs`, async () => {
    let counter = 0;
    await fc.assert(
      fc.asyncProperty(canaryArbitrary, fc.constantFrom('cloudwatch', 'pagerduty'), async (canary, source) => {
        counter += 1;
        clock += 1_000;
        const tag = `m${counter.toString(36)}${Date.now().toString(36).slice(-4)}`;
        const seen: Seen = {};
        script(tag, seen);
        const before = world.server.requests.length;
        const logsBefore = logs.length;
        const text = hostile(canary);
        const runId = source === 'cloudwatch' ? await fireAlarm(tag, text) : await firePagerDuty(tag, text);
        await workflow.idle();

        const forbidden = needles(canary);
        const leaks = (what: string, body: string) =>
          expect(
            forbidden.filter((needle) => body.includes(needle)),
            what,
          ).toEqual([]);
        const bodies = world.server.requests.slice(before);
        expect(bodies.length).toBeGreaterThanOrEqual(2);
        for (const body of bodies) leaks('a request to the model provider', JSON.stringify(body));
        leaks('a log line or metric', logs.slice(logsBefore).join('\n'));
        const run = await getRoute('getRun', runId);
        leaks('GET /runs/{id}', run);
        expect(run).toMatch(/<phone:[a-z2-7]{5,13}>/);
        const items = await partitionItems(documents, world.tableName, [`RUN#${runId}`]);
        for (const item of items) leaks(`item ${String(item.sk)}`, JSON.stringify(item));
        // The question's pseudonym is the run's own: restored for the tool, never refused as unknown.
        expect(seen.token).toBeDefined();
        expect(seen.code).not.toBe('UNKNOWN_PSEUDONYM');
        // The positive control: the reveal route gives the values back, as the sender's text meant them.
        const reveal = await getRoute('getRunReveal', runId);
        expect(reveal).toContain(canary.phone);
        expect(world.server.script).toHaveLength(0);
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
  }, 600_000);
});
