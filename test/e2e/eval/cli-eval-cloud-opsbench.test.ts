/**
 * `diagnosis eval cloud-opsbench` run in process (runCommandLine) on a small dataset written in Cloud-OpsBench's layout
 * (test/fixtures/cloud-opsbench: invented cases, none copied from the dataset): offline, every case imports or is
 * skipped with its reason and each golden trajectory replays through the real provider, Diagnose function, guards and
 * release; live, the real agent and judge against a loopback OpenAI-compatible server in DeepSeek's wire format, scored
 * as the benchmark scores; `eval compare` between two models' reports; `--json` as its JSON Schema says.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runInProcess } from '../../support/cli-in-process.ts';
import { startDeepSeekServer, wireText, wireToolCalls } from '../../support/deepseek-server.ts';
import { schemaErrors } from '../../support/json-schemas.ts';
import { judgeAnswer } from '../../support/judge-answer.ts';

const endpoint = inject('dynamodbEndpoint');
const DATASET = resolve(import.meta.dirname, '../../fixtures/cloud-opsbench');
const scratch = mkdtempSync(join(tmpdir(), 'cli-opsbench-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

type Report = Record<string, unknown> & {
  totals: Record<string, unknown>;
  cases: (Record<string, unknown> & { case: string })[];
};
let offline: Report;

beforeAll(async () => {
  const finished = await runInProcess(['eval', 'cloud-opsbench', DATASET, '--json', '--concurrency', '2'], {
    DYNAMODB_ENDPOINT: endpoint,
  });
  expect(finished.stderr).not.toContain('stopped by');
  expect(finished.code).toBe(0);
  offline = JSON.parse(finished.stdout);
}, 180_000);

const caseOf = (report: Report, key: string) => report.cases.find((entry) => entry.case === key);

describe('diagnosis eval cloud-opsbench (offline replay)', () => {
  it('prints a report its JSON Schema accepts, every case imported or skipped with its reason', () => {
    expect(schemaErrors('cloud-opsbench-report', offline)).toEqual([]);
    expect(offline.cases.map((entry) => [entry.case, entry.status, entry.reason])).toEqual([
      ['boutique/runtime/1', 'REPLAYED', null],
      ['boutique/startup/1', 'IMPORTED', 'no golden trajectory: imported, not replayed'],
      ['boutique/startup/3', 'SKIPPED', 'LOGS_ABSENT: raw_data/logs.json is not in the dataset'],
      ['trainticket/runtime/1', 'REPLAYED', null],
      ['trainticket/runtime/2', 'REPLAYED', null],
      ['trainticket/service/1', 'REPLAYED', null],
    ]);
    expect(offline.totals).toMatchObject({
      cases: 6,
      imported: 5,
      skipped: 1,
      skip_reasons: { LOGS_ABSENT: 1 },
      not_replayed: 1,
      replayed: 4,
      published: 4,
      errors: 0,
    });
  });

  it('brings the root cause across a stack trace longer than the 8 KiB observation to the agent', () => {
    // trainticket/runtime/1: an 80-frame trace (over 9 KB raw) whose `Caused by:` sits after 40 frames.
    expect(caseOf(offline, 'trainticket/runtime/1')).toMatchObject({
      release: { status: 'PUBLISHED', cause: null },
      evidence_recall: {
        messages: { expert: 4, found: 4, recall: 1 },
        signatures: { expert: 2, found: 2, recall: 1 },
      },
      replay: { calls: 4, skipped_steps: { GetAppYAML: 1, CheckServiceConnectivity: 1 }, repeated_steps: 2 },
      tokens: { measured: true },
    });
    // The experts' output as JSON text encoded twice, and a step for a service without logs (counted).
    expect(caseOf(offline, 'trainticket/runtime/2')).toMatchObject({
      evidence_recall: { signatures: { expert: 2, found: 2 } },
      replay: { skipped_steps: { 'GetErrorLogs (no log stream)': 1 } },
    });
    expect((offline.totals.tokens as { per_case: number }).per_case).toBeGreaterThan(5_000);
  });

  it('finds a restarted container’s lines in the window when its clock’s zone is not the case’s', () => {
    // trainticket/service/1: the previous container's lines carry no prefix and a UTC clock; the case is +08:00.
    expect(caseOf(offline, 'trainticket/service/1')).toMatchObject({
      release: { status: 'PUBLISHED', cause: null },
      evidence_recall: {
        messages: { expert: 2, found: 2, recall: 1 },
        lost: { parser: 0, budget: 0, window: 0, level: 0, limit: 0, cut: 0, masking: 0 },
      },
    });
  });
});

/** A model that reads the question's window, asks the ERROR logs of one service, and concludes with labels. */
function liveModel(conclusion: string) {
  let window = { start: '', end: '' };
  const agent = [
    (body: Record<string, unknown>) => {
      const messages = body.messages as { role: string; content: string }[];
      const user = JSON.parse(messages.find((message) => message.role === 'user')?.content ?? '{}') as {
        query?: string;
      };
      const match = /时间窗口：(\S+) 至 (\S+)。/.exec(user.query ?? '');
      window = { start: match?.[1] ?? '', end: match?.[2] ?? '' };
      return wireToolCalls([
        {
          id: 'call_00_live0000000000000000001',
          name: 'query_logs',
          arguments: {
            input: { service: 'ts-ledger-service', start_time: window.start, end_time: window.end, level: 'ERROR' },
          },
        },
      ]);
    },
    () =>
      wireText(
        JSON.stringify({
          conclusion,
          analysis: [
            {
              type: 'FINDING',
              statement: 'ts-ledger-service 启动时连接池初始化失败：Access denied for user',
              evidence_status: 'SUPPORTED',
              refs: ['call_00_live0000000000000000001'],
              scope: `ts-ledger-service ERROR ${window.start} 至 ${window.end}`,
            },
          ],
          action_plan: [],
          recommendations: [],
          limitations: { checked_scope: ['ts-ledger-service ERROR 日志'], missing_info: [] },
        }),
      ),
  ];
  const judge = [
    () =>
      wireText(
        judgeAnswer({
          analysis: [{ index: 0, verdict: 'SUPPORTED', reason: '日志显示 Access denied' }],
          conclusion: { verdict: 'SUPPORTED', reason: '由第 0 条推出' },
        }),
      ),
  ];
  return { agent, judge };
}

async function liveRun(conclusion: string, file: string): Promise<Report> {
  const model = liveModel(conclusion);
  const server = await startDeepSeekServer(model.agent, model.judge);
  try {
    const finished = await runInProcess(
      ['eval', 'cloud-opsbench', DATASET, '--live', '--case', 'trainticket/runtime/1', '--json'],
      {
        DYNAMODB_ENDPOINT: endpoint,
        DIAGNOSIS_MODEL_BASE_URL: server.baseURL,
        DIAGNOSIS_MODEL_API_KEY: 'sk-loopback-not-a-key',
        DIAGNOSIS_MODEL_ID: 'deepseek-v4-flash',
      },
    );
    expect(finished.code).toBe(0);
    // The real provider sent the agent's rounds and the judge's one request.
    expect(server.requests.length).toBe(2);
    expect(server.judgeRequests.length).toBe(1);
    writeFileSync(join(scratch, file), finished.stdout);
    return JSON.parse(finished.stdout);
  } finally {
    await server.close();
  }
}

describe('diagnosis eval cloud-opsbench --live', () => {
  let right: Report;
  let wrong: Report;
  beforeAll(async () => {
    right = await liveRun(
      '故障对象 app/ts-ledger-service，根因 mysql_invalid_credentials：数据库凭据失效。',
      'right.json',
    );
    wrong = await liveRun('故障对象 app/ts-ledger-service，根因 mysql_invalid_port：端口配置错误。', 'wrong.json');
  }, 180_000);

  it('runs the real agent and judge through the local runner and scores the conclusion as the benchmark does', () => {
    expect(schemaErrors('cloud-opsbench-report', right)).toEqual([]);
    expect(right.totals).toMatchObject({
      cases: 1,
      ran: 1,
      published: 1,
      evidence_recall: null,
      accuracy: { scored: 1, component: 1, fault: 1, joint: 1 },
    });
    expect(caseOf(right, 'trainticket/runtime/1')).toMatchObject({
      status: 'RAN',
      live: {
        predicted: { fault_object: 'app/ts-ledger-service', root_cause: 'mysql_invalid_credentials' },
        joint: true,
      },
      tokens: { measured: false },
    });
    // Tokens and money at the profile's prices: the provider's usage.
    expect((right.totals.tokens as { total: number }).total).toBeGreaterThan(0);
    expect(right.totals.cost_usd as number).toBeGreaterThan(0);
    expect(wrong.totals).toMatchObject({ accuracy: { component: 1, fault: 0, joint: 0 } });
  });

  it('compares two models’ reports: the case that went from right to wrong regressed', async () => {
    const text = await runInProcess(['eval', 'compare', join(scratch, 'right.json'), join(scratch, 'wrong.json')], {});
    expect(text.code).toBe(1);
    expect(text.stdout).toContain('REGRESSED  trainticket/runtime/1  joint right → joint wrong');
    expect(text.stdout).toContain('joint accuracy: 100.0% → 0.0%');
    const json = await runInProcess(
      ['eval', 'compare', join(scratch, 'right.json'), join(scratch, 'wrong.json'), '--json'],
      {},
    );
    expect(schemaErrors('cloud-opsbench-comparison', JSON.parse(json.stdout))).toEqual([]);
  });
});

describe('diagnosis eval cloud-opsbench: bad command lines', () => {
  it.each([
    [['eval', 'cloud-opsbench'], 'no dataset folder'],
    [['eval', 'cloud-opsbench', scratch], 'has no benchmark/ folder'],
    [['eval', 'cloud-opsbench', DATASET, '--only', 'x'], '--only is not an option of eval cloud-opsbench'],
    [['eval', 'cloud-opsbench', DATASET, '--live'], '--live needs DIAGNOSIS_MODEL_API_KEY'],
    [['eval', 'cloud-opsbench', DATASET, '--case', 'trainticket/runtime/99'], 'no case trainticket/runtime/99'],
    [['eval', 'cloud-opsbench', DATASET, '--limit', '0'], '--limit must be a whole number'],
    [['eval', '--system', 'boutique'], '--system is an option of eval cloud-opsbench'],
  ])('refuses %j with exit 64', async (args, message) => {
    const finished = await runInProcess(args, { DYNAMODB_ENDPOINT: endpoint });
    expect(finished.code).toBe(64);
    expect(finished.stderr).toContain(message);
    expect(finished.stdout).toBe('');
  });
});
