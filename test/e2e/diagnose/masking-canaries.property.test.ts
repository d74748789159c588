/**
 * Issue 22's property: canary secrets and identifiers of every kind, planted in a runbook, in log lines (plain,
 * JSON-escaped, split across fields, in error texts) and in MySQL rows, go through the real Diagnose handler (a
 * scripted model on the loopback DeepSeek server, the SemanticGuard on, DynamoDB Local, the local adapters, MariaDB),
 * and NOTHING outside the pseudonym partition and the reveal route ever holds one: no request body to the model or
 * the judge, no audit item, no log line or metric, no response of the diagnose, run, audit or reasoning routes.
 * The model reuses pseudonyms it saw as a `query_logs` keyword and a `query_mysql` parameter and gets the evidence
 * (masked); a made-up pseudonym and one of another run are refused. The positive control: the reveal route returns
 * the canaries to a caller of the same enterprise and answers 404 to another.
 * NOTE: one world, one table, one set of handlers and one MariaDB database for all runs (the machine is shared);
 * the runbooks are written before the Diagnose cold start (its knowledge index is built then), so their canaries are
 * drawn once from the same arbitraries; the log file and the MySQL rows are planted anew for every run.
 * NOTE: over 300 lines on purpose: one property over one world (runbook, logs, MySQL rows with planted canaries)
 * through the real Diagnose handler; the world's set-up and the checks of every place a canary could reach belong
 * together.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DiagnosisResult } from '@diagnosis/core';
import { createMysqlPool } from '@diagnosis/core/adapters';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { passesLuhn } from '../../../packages/core/src/tools/masking/checksums.ts';
import { wireText, wireToolCalls } from '../../support/deepseek-server.ts';
import { localDynamoClient, partitionItems } from '../../support/dynamodb.ts';
import { startE2eWorld } from '../../support/e2e-world.ts';
import { judgeAnswer } from '../../support/judge-answer.ts';
import { httpEvent, lambdaContext } from '../../support/lambda-events.ts';
import { MYSQL_TEST_URL, mariadbAvailable, randomSuffix } from '../../support/mariadb.ts';
import { propertyRuns } from '../../support/property-runs.ts';
import { envelope } from '../../support/run-fixtures.ts';

const RUNS = propertyRuns(300, 40, 3701);
const RUNBOOKS = 6;
const SERVICE = 'checkout-service';
const WINDOW = { start_time: '2026-11-30T13:00:00+08:00', end_time: '2026-11-30T15:00:00+08:00' };
const OPS_E1001 = { accountId: '111122223333', userArn: 'arn:aws:sts::111122223333:assumed-role/OpsE1001/alice' };
const OPS_E2002 = { accountId: '111122223333', userArn: 'arn:aws:sts::111122223333:assumed-role/OpsE2002/bob' };
const POLICY = [
  { principal: 'arn:aws:sts::111122223333:assumed-role/OpsE1001/*', enterprises: ['E1001'] },
  { principal: 'arn:aws:sts::111122223333:assumed-role/OpsE2002/*', enterprises: ['E2002'] },
];

// ---------- canaries: realistic synthetic values of every kind (checksums computed, so detectors must find them)

const digits = (length: number) => fc.stringMatching(new RegExp(`^[0-9]{${length}}$`));
const hex = (length: number) => fc.stringMatching(new RegExp(`^[0-9a-f]{${length}}$`));
const base64url = (min: number, max: number) => fc.stringMatching(new RegExp(`^[A-Za-z0-9_-]{${min},${max}}$`));
const alnum = (length: number) => fc.stringMatching(new RegExp(`^[A-Za-z0-9]{${length}}$`));

function luhnComplete(prefix: string): string {
  for (let check = 0; check <= 9; check += 1) if (passesLuhn(`${prefix}${check}`)) return `${prefix}${check}`;
  throw new Error('unreachable');
}

const WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
function residentId(area: string, birth: string, sequence: string): string {
  const body = `${area}${birth}${sequence}`;
  const sum = [...body].reduce((total, digit, index) => total + Number(digit) * (WEIGHTS[index] ?? 0), 0);
  return `${body}${'10X98765432'[sum % 11]}`;
}

const canaryArbitrary = fc.record({
  // Identifiers. NOTE: phone prefixes 13/15/18 only: no 11-digit run of a 17… epoch (ttl, timestamps) can equal one.
  email: fc.tuple(fc.stringMatching(/^[a-z]{3,8}$/), alnum(6)).map(([name, tag]) => `${name}.${tag}@example-mail.cn`),
  phone: fc.tuple(fc.constantFrom('13', '15', '18'), digits(9)).map(([head, rest]) => `${head}${rest}`),
  e164: digits(9).map((rest) => `+447${rest}`),
  ipv4: fc
    .tuple(fc.integer({ min: 1, max: 223 }), fc.nat(255), fc.nat(255), fc.integer({ min: 1, max: 254 }))
    .map((parts) => parts.join('.')),
  ipv6: fc.tuple(hex(4), hex(4), hex(4)).map(([a, b, c]) => `2001:db8:${a}:${b}::${c}`),
  residentId: fc
    .tuple(
      fc.constantFrom('110105', '310104', '440305'),
      fc.date({ min: new Date('1950-01-01'), max: new Date('2005-12-31'), noInvalidDate: true }),
      digits(3),
    )
    .map(([area, date, sequence]) => residentId(area, date.toISOString().slice(0, 10).replaceAll('-', ''), sequence)),
  card: fc
    .tuple(fc.constantFrom('4', '5', '62'), digits(13))
    .map(([head, rest]) => luhnComplete(`${head}${rest}`.slice(0, 15))),
  account: fc.tuple(fc.integer({ min: 1, max: 9 }), digits(11)).map(([head, rest]) => `${head}${rest}`),
  instance: hex(17),
  customer: digits(6).map((rest) => `CUST-${rest}`),
  // Secrets.
  jwt: fc
    .tuple(base64url(10, 30), base64url(10, 40), base64url(20, 43))
    .map(([header, payload, signature]) => `eyJ${header}.eyJ${payload}.${signature}`),
  accessKey: fc.stringMatching(/^[A-Z2-7]{16}$/).map((rest) => `AKIA${rest}`),
  secretKey: fc.stringMatching(/^[A-Za-z0-9/+]{40}$/),
  bearer: alnum(32),
  password: alnum(14).map((rest) => `Pw${rest}!`),
  pemBody: fc.stringMatching(/^[A-Za-z0-9+/]{64}$/),
  github: alnum(36).map((rest) => `ghp_${rest}`),
});
type Canaries = typeof canaryArbitrary extends fc.Arbitrary<infer T> ? T : never;

/** Issue 32, item 8: a value as user-typed Chinese text (full-width) or a split log line (zero-width) writes it. */
const fullWidth = (text: string) =>
  text.replace(/[0-9A-Za-z@.]/g, (character) => String.fromCharCode(character.charCodeAt(0) + 0xfee0));
const zeroWidthSplit = (text: string) => `${text.slice(0, 4)}\u200b${text.slice(4, 8)}\u2060${text.slice(8)}`;

/** The part of each canary that must never be seen (a kept prefix such as `i-` or `CUST-` is not the canary). */
function needles(canary: Canaries): string[] {
  return [
    fullWidth(canary.phone),
    fullWidth(canary.email),
    canary.email.replace('@', '%40'),
    zeroWidthSplit(canary.card),
    zeroWidthSplit(canary.phone),
    canary.email,
    canary.email.split('@')[0] ?? canary.email,
    canary.phone,
    canary.e164,
    canary.ipv4,
    canary.ipv6,
    canary.residentId,
    canary.card,
    canary.account,
    canary.instance,
    canary.customer,
    canary.jwt,
    canary.accessKey,
    canary.secretKey,
    canary.bearer,
    canary.password,
    canary.pemBody,
    canary.github,
  ];
}

const pem = (body: string) =>
  `-----BEGIN RSA PRIVATE KEY-----\n${body}\n${body.slice(0, 32)}==\n-----END RSA PRIVATE KEY-----`;

function runbook(index: number, canary: Canaries): string {
  return [
    '---',
    `title: 结账服务支付失败排查 RB${index}ZQ`,
    `service: ${SERVICE}`,
    'tags: [支付, 结账]',
    '---',
    '',
    `# 结账服务支付失败排查 RB${index}ZQ`,
    '',
    `适用服务：${SERVICE}。值班联系人 ${canary.email}，电话 ${canary.phone}，海外 ${canary.e164}。`,
    `旧版本把测试卡 ${canary.card} 和身份证 ${canary.residentId} 写进了示例，请勿复制。`,
    `连接串示例 mysql://app:${canary.password}@db.internal:3306/shop；访问密钥 ${canary.accessKey}，`,
    `aws_secret_access_key=${canary.secretKey}，令牌 ${canary.github}，网关地址 ${canary.ipv4} / ${canary.ipv6}。`,
    `账号 arn:aws:iam::${canary.account}:role/checkout，实例 i-${canary.instance}，客户 ${canary.customer}。`,
    '',
    pem(canary.pemBody),
    '',
    `Authorization: Bearer ${canary.bearer}，回调里带的 ${canary.jwt} 会过期。`,
  ].join('\n');
}

function logLines(tag: string, canary: Canaries): string {
  const escaped = JSON.stringify(JSON.stringify({ email: canary.email.replace('@', '\\u0040'), token: canary.jwt }));
  const lines = [
    [
      'ERROR',
      `payment failed run ${tag} user ${canary.phone} email=${canary.email} card ${canary.card} from ${canary.ipv4}`,
    ],
    ['ERROR', `upstream body run ${tag}: ${escaped}`],
    [
      'WARN',
      `login run ${tag} Authorization: Bearer ${canary.bearer} password=${canary.password} id ${canary.residentId}`,
    ],
    [
      'ERROR',
      `java.sql.SQLException run ${tag}: Access denied for user 'app'@'${canary.ipv6}' url=mysql://app:${canary.password}@db:3306 aws_secret_access_key=${canary.secretKey} key ${canary.accessKey}`,
    ],
    [
      'ERROR',
      `assume role run ${tag} arn:aws:iam::${canary.account}:role/checkout on i-${canary.instance} for ${canary.customer} ${canary.github}`,
    ],
    ['INFO', `tls run ${tag} ${pem(canary.pemBody)} e164 ${canary.e164}`],
    // Issue 32, items 7 and 8: marker look-alikes, full-width digits, `%40`, zero-width splits.
    [
      'WARN',
      `hostile run ${tag} note=[MASKED:${canary.phone}] card [REDACTED:${canary.card}] contact <x_${canary.phone}:aaaaa> password=[REDACTED:${canary.password}]`,
    ],
    [
      'WARN',
      `encoded run ${tag} 电话：${fullWidth(canary.phone)} 邮箱 ${fullWidth(canary.email)} GET /reset?user=${canary.email.replace('@', '%40')} card ${zeroWidthSplit(canary.card)} tel ${zeroWidthSplit(canary.phone)}`,
    ],
  ];
  return lines
    .map(([level, message], index) =>
      JSON.stringify({
        timestamp: `2026-11-30T06:${String(10 + index).padStart(2, '0')}:00.000Z`,
        level,
        service: SERVICE,
        enterprise_id: 'E1001',
        // Split across fields: the e-mail address is also the request id.
        trace_id: `req-${canary.email}`,
        message,
      }),
    )
    .join('\n');
}

// ---------- the world

let world: Awaited<ReturnType<typeof startE2eWorld>>;
const documents = DynamoDBDocumentClient.from(localDynamoClient());
let mysql: ReturnType<typeof createMysqlPool> | undefined;
let root: string;
let database: string;
let runbookCanaries: Canaries[] = [];
const logs: string[] = [];
const originals = { log: console.log, error: console.error, warn: console.warn, info: console.info };
const available = await mariadbAvailable();

const CATALOG = [
  {
    name: 'customers_by_tag',
    description: '按批次标记查询客户资料',
    sql: 'SELECT customer_id, phone, mobile_number, email, id_card, card_no, last_error, api_token FROM customers WHERE enterprise_id = :enterprise_id AND run_tag = :run_tag',
    params: { run_tag: { type: 'string', description: '批次标记', max_length: 32 } },
    max_rows: 5,
  },
  {
    name: 'customer_by_phone',
    description: '按手机号查询客户',
    sql: 'SELECT customer_id, email, last_error FROM customers WHERE enterprise_id = :enterprise_id AND phone = :phone',
    params: { phone: { type: 'string', description: '手机号', max_length: 32 } },
    max_rows: 5,
  },
];

beforeAll(async () => {
  if (!available) return;
  root = mkdtempSync(join(tmpdir(), 'masking-canaries-'));
  const knowledgeDir = join(root, 'knowledge');
  const logsDir = join(root, 'logs');
  mkdirSync(knowledgeDir);
  mkdirSync(logsDir);
  runbookCanaries = fc.sample(canaryArbitrary, { numRuns: RUNBOOKS, seed: 22 });
  runbookCanaries.forEach((canary, index) => {
    writeFileSync(join(knowledgeDir, `checkout-rb${index}.md`), runbook(index, canary));
  });
  writeFileSync(join(root, 'catalog.json'), JSON.stringify(CATALOG));
  database = `diag_mask_${randomSuffix()}`;
  const admin = createMysqlPool({ url: MYSQL_TEST_URL, connectionLimit: 1 });
  await admin.query(`CREATE DATABASE ${database}`);
  await admin.end();
  const url = MYSQL_TEST_URL.replace(/\/[^/]*$/, `/${database}`);
  mysql = createMysqlPool({ url, connectionLimit: 2 });
  await mysql.query(
    `CREATE TABLE customers (enterprise_id VARCHAR(16), run_tag VARCHAR(32), customer_id VARCHAR(32), phone VARCHAR(32),
      mobile_number BIGINT, email VARCHAR(128), id_card VARCHAR(18), card_no VARCHAR(19), last_error TEXT,
      api_token VARCHAR(128))`,
  );
  world = await startE2eWorld({
    TENANT_ACCESS: JSON.stringify(POLICY),
    SEMANTIC_GUARD: 'enforce',
    KNOWLEDGE_DIR: knowledgeDir,
    LOGS_DIR: logsDir,
    MYSQL_URL: url,
    MYSQL_CATALOG_PATH: join(root, 'catalog.json'),
    MASKING_PATTERNS: JSON.stringify([{ kind: 'customer_id', pattern: 'CUST-[0-9]{6}' }]),
  });
  for (const level of ['log', 'error', 'warn', 'info'] as const) {
    console[level] = (...parts: unknown[]) =>
      void logs.push(parts.map((part) => (typeof part === 'string' ? part : JSON.stringify(part))).join(' '));
  }
}, 120_000);

afterAll(async () => {
  Object.assign(console, originals);
  await world?.cleanup();
  if (mysql !== undefined) {
    await mysql.query(`DROP DATABASE IF EXISTS ${database}`);
    await mysql.end();
  }
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

async function plant(tag: string, canary: Canaries): Promise<void> {
  writeFileSync(join(root, 'logs', 'canary.jsonl'), `${logLines(tag, canary)}\n`);
  await mysql?.query('INSERT INTO customers VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)', [
    'E1001',
    tag,
    canary.customer,
    canary.phone,
    Number(canary.phone),
    canary.email,
    canary.residentId,
    canary.card,
    `timeout calling ${canary.ipv4} as ${canary.email}: Bearer ${canary.bearer}`,
    canary.github,
  ]);
}

// ---------- the scripted model

type ChatMessage = { role: string; content?: unknown; tool_call_id?: string };
const toolResults = (body: Record<string, unknown>) =>
  (body.messages as ChatMessage[]).filter((message) => message.role === 'tool');
const resultOf = (body: Record<string, unknown>, id: string) =>
  JSON.parse(String(toolResults(body).find((message) => message.tool_call_id === id)?.content ?? 'null')) as {
    evidence_status: string;
    code?: string;
    data?: unknown;
  } | null;
const firstToken = (value: unknown, kind: string) =>
  JSON.stringify(value).match(new RegExp(`<${kind}:[a-z2-7]{5,13}>`))?.[0];

let foreignPseudonym: string | undefined;
const seen: { round2?: Record<string, unknown>; round3?: Record<string, unknown> } = {};

function script(tag: string, runbookIndex: number) {
  const id = (name: string) => `call_${tag}_${name}`;
  world.server.script.push(
    wireToolCalls([
      {
        id: id('kb'),
        name: 'lookup_knowledge',
        arguments: envelope({ query: `结账服务支付失败排查 RB${runbookIndex}ZQ` }),
      },
      {
        id: id('logs'),
        name: 'query_logs',
        arguments: envelope(
          { service: SERVICE, ...WINDOW, keyword: `run ${tag}` },
          { tool_call_id: id('kb'), evaluation: 'GAINED' },
        ),
      },
      {
        id: id('rows'),
        name: 'query_mysql',
        arguments: envelope(
          { query_name: 'customers_by_tag', params: { run_tag: tag } },
          { tool_call_id: id('logs'), evaluation: 'GAINED' },
        ),
      },
    ]),
    (body) => {
      seen.round2 = body;
      const phoneInLogs = firstToken(resultOf(body, id('logs'))?.data, 'phone') ?? '<phone:missing>';
      const phoneInRows = firstToken(resultOf(body, id('rows'))?.data, 'phone') ?? '<phone:missing>';
      const calls = [
        {
          id: id('by_phone_logs'),
          name: 'query_logs',
          arguments: envelope(
            { service: SERVICE, ...WINDOW, keyword: phoneInLogs },
            { tool_call_id: id('rows'), evaluation: 'GAINED' },
          ),
        },
        {
          id: id('by_phone_rows'),
          name: 'query_mysql',
          arguments: envelope(
            { query_name: 'customer_by_phone', params: { phone: phoneInRows } },
            { tool_call_id: id('by_phone_logs'), evaluation: 'GAINED' },
          ),
        },
        {
          id: id('made_up'),
          name: 'query_logs',
          arguments: envelope(
            { service: SERVICE, ...WINDOW, keyword: '<email:abcde>' },
            { tool_call_id: id('by_phone_rows'), evaluation: 'GAINED' },
          ),
        },
        ...(foreignPseudonym === undefined
          ? []
          : [
              {
                id: id('foreign'),
                name: 'query_logs',
                arguments: envelope(
                  { service: SERVICE, ...WINDOW, keyword: foreignPseudonym },
                  { tool_call_id: id('by_phone_rows'), evaluation: 'GAINED' },
                ),
              },
            ]),
      ];
      foreignPseudonym = phoneInLogs;
      return wireToolCalls(calls);
    },
    (body) => {
      seen.round3 = body;
      const logsData = resultOf(body, id('by_phone_logs'))?.data;
      const phone = firstToken(logsData, 'phone') ?? 'missing';
      return wireText(
        JSON.stringify({
          conclusion: `用户 ${phone} 的支付因网关超时失败`,
          analysis: [
            {
              type: 'FINDING',
              statement: `日志与客户表都显示用户 ${phone} 的支付失败`,
              evidence_status: 'SUPPORTED',
              refs: [id('by_phone_logs'), id('by_phone_rows')],
              scope: null,
            },
          ],
          action_plan: [{ step: `联系用户 ${phone}`, purpose: '确认影响' }],
          recommendations: [],
          limitations: { checked_scope: [SERVICE], missing_info: [] },
        }),
      );
    },
  );
  world.server.judgeScript.push(
    wireText(
      judgeAnswer({
        analysis: [{ index: 0, verdict: 'SUPPORTED', reason: '两条证据都指向同一个假名用户' }],
        conclusion: { verdict: 'SUPPORTED', reason: '由第 0 条发现推出' },
        action_plan: [{ index: 0, verdict: 'SUPPORTED', reason: '为确认影响' }],
      }),
    ),
  );
}

const needlesByRun = new Map<string, string[]>();

/** The items of a run's three partitions: its records, its reasoning and its pseudonym map. */
const runItems = (runId: string) =>
  partitionItems(documents, world.tableName, [`RUN#${runId}`, `REASONING#${runId}`, `PSEUDONYMS#${runId}`]);

async function route(
  name: 'getRun' | 'getRunAudit' | 'getRunReasoning' | 'getRunReveal',
  runId: string,
  caller = OPS_E1001,
): Promise<{ status: number; body: Record<string, unknown>; text: string }> {
  const suffix = { getRun: '', getRunAudit: '/audit', getRunReasoning: '/reasoning', getRunReveal: '/reveal' }[name];
  const response = (await world.handlers[name](
    httpEvent({ method: 'GET', path: `/runs/${runId}${suffix}`, pathParameters: { runId }, iam: caller }),
    lambdaContext(5_000),
  )) as { statusCode: number; body: string };
  return {
    status: response.statusCode,
    body: JSON.parse(response.body) as Record<string, unknown>,
    text: response.body,
  };
}

describe.skipIf(!available)('masking at the tool boundary, through the real handlers (property)', () => {
  it(`keeps every canary out of everything but the reveal route, over ${RUNS.numRuns} runs`, async () => {
    let counter = 0;
    await fc.assert(
      fc.asyncProperty(canaryArbitrary, fc.nat(RUNBOOKS - 1), async (canary, runbookIndex) => {
        counter += 1;
        const tag = `t${counter.toString(36)}${randomSuffix().slice(0, 4)}`;
        const runId = `mask-${tag}`;
        await plant(tag, canary);
        script(tag, runbookIndex);
        const modelBefore = world.server.requests.length;
        const judgeBefore = world.server.judgeRequests.length;
        const logsBefore = logs.length;
        const result = (await world.handlers.diagnose(
          { runId, sessionId: `s-${tag}`, enterpriseId: 'E1001', query: '结账服务支付失败，帮我看看原因' },
          lambdaContext(60_000),
        )) as DiagnosisResult;

        const forbidden = [...needles(canary), ...needles(runbookCanaries[runbookIndex] as Canaries)];
        const leaks = (what: string, text: string) => {
          const found = forbidden.filter((needle) => text.includes(needle));
          expect(found, what).toEqual([]);
        };
        // The run used what it saw: the pseudonymised phone found the evidence again (so the adapters got the real
        // value), the evidence came back masked, and the made-up and foreign pseudonyms were refused.
        expect(result.status, JSON.stringify(result.report).slice(0, 300)).toBe('PUBLISHED');
        const round3 = seen.round3 as Record<string, unknown>;
        const id = (name: string) => `call_${tag}_${name}`;
        expect(resultOf(round3, id('by_phone_logs'))?.evidence_status).toBe('OK');
        expect(resultOf(round3, id('by_phone_rows'))?.evidence_status).toBe('OK');
        expect(resultOf(round3, id('made_up'))).toMatchObject({
          evidence_status: 'REJECTED',
          code: 'UNKNOWN_PSEUDONYM',
        });
        if (counter > 1) {
          expect(resultOf(round3, id('foreign'))).toMatchObject({
            evidence_status: 'REJECTED',
            code: 'UNKNOWN_PSEUDONYM',
          });
        }
        // Every request body to the model and the judge.
        const bodies = [...world.server.requests.slice(modelBefore), ...world.server.judgeRequests.slice(judgeBefore)];
        expect(world.server.judgeRequests.length - judgeBefore).toBe(1);
        for (const body of bodies) leaks('a request to the model provider', JSON.stringify(body));
        // The diagnose response and every read route but the reveal.
        leaks('the diagnose response', JSON.stringify(result));
        for (const name of ['getRun', 'getRunAudit', 'getRunReasoning'] as const) {
          const response = await route(name, runId);
          expect(response.status, name).toBe(200);
          leaks(name, response.text);
        }
        // Every log line and metric the handlers wrote during the run.
        leaks('a log line or metric', logs.slice(logsBefore).join('\n'));
        // Every item of the run's partitions outside the pseudonym partition (the map itself is sealed: no canary in
        // clear there either); the whole table is scanned once at the end.
        const items = await runItems(runId);
        expect(items.some((item) => String(item.pk).startsWith('PSEUDONYMS#'))).toBe(true);
        for (const item of items) leaks(`audit item ${String(item.pk)} ${String(item.sk)}`, JSON.stringify(item));
        needlesByRun.set(runId, forbidden);
        // The positive control: the reveal route gives the real values back to the same enterprise, 404 to another.
        const reveal = await route('getRunReveal', runId);
        expect(reveal.status).toBe(200);
        for (const value of [canary.phone, canary.email, canary.ipv4, canary.card, canary.customer]) {
          expect(reveal.text).toContain(value);
        }
        expect((await route('getRunReveal', runId, OPS_E2002)).status).toBe(404);
        expect(world.server.script).toHaveLength(0);
      }),
      { ...RUNS, endOnFailure: true },
    );
    // The whole table once: every item is checked against the canaries of its run, and an item of no run (a tenant
    // lease, say) against all of them.
    const all = [...new Set([...needlesByRun.values()].flat())];
    for (const item of await world.items()) {
      const runId = String(item.run_id ?? String(item.pk).split('#').slice(1).join('#'));
      const text = JSON.stringify(item);
      const found = (needlesByRun.get(runId) ?? all).filter((needle) => text.includes(needle));
      expect(found, `table item ${String(item.pk)} ${String(item.sk)}`).toEqual([]);
    }
  }, 1_800_000);
});
