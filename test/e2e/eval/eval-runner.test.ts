/**
 * The eval runner end to end: a corpus built here from the demo's scripted conversation, run by `evalMain` through
 * the real handler, provider (loopback replay), guards, DynamoDB Local and MariaDB; the scorecard's verdicts, exit
 * codes, probes, worlds of the scenario's own (MySQL database made and dropped, logs generated), live mode against a
 * loopback model with its total token cap.
 * NOTE: over 300 lines on purpose: the eval runner end to end on one corpus built here, offline and live; both share
 * the corpus, the loopback servers and the scorecard checks.
 */
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createMysqlPool } from '@diagnosis/core/adapters';
import { type EvalReport, evalMain, priceOf } from '@diagnosis/eval';
import { describe, expect, inject, it } from 'vitest';
import { startDeepSeekServer } from '../../support/deepseek-server.ts';
import { MYSQL_TEST_URL, mariadbAvailable } from '../../support/mariadb.ts';
import { tempDir } from '../../support/temp-dir.ts';

const demo = JSON.parse(
  readFileSync(new URL('../../../examples/demo/e1001-scripted-conversation.json', import.meta.url), 'utf8'),
);
const hasMysql = await mariadbAvailable();

const base = {
  category: 'logs',
  enterpriseId: 'E1001',
  now: '2026-11-30T14:30:00+08:00',
  query: demo.query,
};
const poolProbe = {
  tool: 'query_logs',
  input: {
    service: 'payment-gateway',
    start_time: '2026-11-30T14:00:00+08:00',
    end_time: '2026-11-30T15:00:00+08:00',
    keyword: 'HikariPool',
  },
  expect: 'EVIDENCE',
  mustContain: ['active=5'],
};

function writeScenario(root: string, spec: Record<string, unknown>, files: Record<string, unknown> = {}): void {
  const dir = join(root, String(spec.id));
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'scenario.json'), JSON.stringify({ ...base, ...spec }));
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), typeof content === 'string' ? content : JSON.stringify(content));
  }
}

const scripted = { responses: demo.responses, judge: demo.judgeResponses };

async function runEvalCli(args: string[], env: Record<string, string | undefined> = {}) {
  let stdout = '';
  let stderr = '';
  const code = await evalMain(args, {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    interactive: false,
    env: {
      DYNAMODB_ENDPOINT: inject('dynamodbEndpoint'),
      ...(hasMysql ? { EVAL_MYSQL_URL: MYSQL_TEST_URL } : {}),
      ...env,
    },
  });
  return { code, stdout, stderr };
}

describe('npm run eval (offline)', () => {
  it('scores a right run CORRECT and a deliberately wrong one CONFIDENTLY_WRONG, and exits 0 when both are as expected', async () => {
    const root = await tempDir('eval-e2e-');
    writeScenario(
      root,
      {
        id: 'right',
        title: '连接池耗尽',
        expected: {
          outcome: 'DIAGNOSIS',
          rootCause: { anyOf: [['连接池', '耗尽']] },
          mustNotClaim: ['数据库宕机'],
          requiredEvidence: ['query_logs'],
        },
        probes: [poolProbe],
      },
      { 'scripted.json': scripted },
    );
    writeScenario(
      root,
      {
        id: 'scripted-wrong',
        title: '真实原因是库存服务（脚本故意答错）',
        expected: {
          outcome: 'DIAGNOSIS',
          rootCause: { anyOf: [['库存服务', '超卖']] },
          scripted: { verdict: 'CONFIDENTLY_WRONG', why: 'the script blames the pool; the truth here is inventory' },
        },
        probes: [poolProbe],
      },
      { 'scripted.json': scripted },
    );
    const html = join(root, 'card.html');
    const { code, stdout, stderr } = await runEvalCli(['--scenarios', root, '--json', '--html', html]);
    expect(stderr).not.toMatch(/at .*\.ts:\d+/);
    // The progress says whether each scenario scored as expected, not "ok" beside an expected CONFIDENTLY_WRONG.
    expect(stderr).toMatch(/^\[\d\/2\] as expected {2}scripted-wrong CONFIDENTLY_WRONG$/m);
    expect(stderr).toMatch(/^\[\d\/2\] as expected {2}right CORRECT$/m);
    expect(stderr).not.toMatch(/\] (ok|XX) /);
    const report = JSON.parse(stdout) as EvalReport;
    expect(code).toBe(0);
    const [right, wrong] = report.scenarios;
    expect(right).toMatchObject({
      id: 'right',
      status: 'RAN',
      verdict: 'CORRECT',
      passed: true,
      semanticGuard: 'enforce',
    });
    expect(right?.observation?.citedTools).toContain('query_logs');
    expect(right?.usage.totalTokens).toBeGreaterThan(0);
    expect(right?.costUsd).toBeGreaterThan(0);
    // Offline, the request bodies the loopback server received are measured with DeepSeek's tokenizer, and the cost
    // is the measured tokens' (the demo's five agent rounds and the judge's call; its script claims 36,430 input).
    const measured = right?.measured;
    expect(measured?.inputTokens).toBeGreaterThan(10_000);
    expect(measured?.inputTokens).toBeLessThan(right?.usage.inputTokens ?? 0);
    expect(measured?.parts.judge).toBeGreaterThan(0);
    expect(measured?.cachedInputTokens).toBeGreaterThan(0);
    expect(right?.costUsd).toBe(
      priceOf(measured ?? { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 }, report.price),
    );
    expect(report.summary.measuredTokensPerRun).toBe(
      ((measured?.totalTokens ?? 0) + (wrong?.measured?.totalTokens ?? 0)) / 2,
    );
    expect(wrong).toMatchObject({ verdict: 'CONFIDENTLY_WRONG', expectedVerdict: 'CONFIDENTLY_WRONG', passed: true });
    expect(report.summary).toMatchObject({ ran: 2, confidentlyWrong: 1, asExpected: 2, allAsExpected: true });
    expect(report.summary.accuracy).toBe(0.5);
    const page = readFileSync(html, 'utf8');
    expect(page).toContain('CONFIDENTLY_WRONG');
    expect(page).not.toMatch(/<script|https?:\/\/(?!www\.w3)/);
  });

  it('fails the eval (exit 1) when a scripted run is wrong and the scenario does not say so, and when a probe fails', async () => {
    const root = await tempDir('eval-e2e-');
    writeScenario(
      root,
      {
        id: 'unmarked-wrong',
        title: '<script>alert(1)</script>',
        expected: { outcome: 'DIAGNOSIS', rootCause: { anyOf: [['库存服务']] } },
        probes: [{ ...poolProbe, mustContain: ['active=5', 'no such text in the logs'] }],
      },
      { 'scripted.json': scripted },
    );
    const html = join(root, 'card.html');
    const { code, stdout } = await runEvalCli(['--scenarios', root, '--html', html]);
    expect(code).toBe(1);
    expect(stdout).toMatch(/XX\s+unmarked-wrong\s+logs\s+DIAGNOSIS\s+CONFIDENTLY_WRONG/);
    expect(stdout).toContain('missing no such text in the logs');
    expect(stdout).toContain('0/1 scenarios scored as expected — FAIL');
    const page = readFileSync(html, 'utf8');
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page).not.toContain('<script>');
  });

  it('scores a run whose scripted conversation runs out as FAILED, with the SemanticGuard off and said so', async () => {
    const root = await tempDir('eval-e2e-');
    writeScenario(
      root,
      {
        id: 'short-script',
        title: '脚本只有两轮',
        expected: { outcome: 'DIAGNOSIS', rootCause: { anyOf: [['连接池']] } },
        probes: [poolProbe],
      },
      { 'scripted.json': { responses: demo.responses.slice(0, 2) } },
    );
    const { code, stdout } = await runEvalCli(['--scenarios', root, '--json']);
    const report = JSON.parse(stdout) as EvalReport;
    expect(code).toBe(1);
    expect(report.scenarios[0]).toMatchObject({
      status: 'RAN',
      verdict: 'FAILED',
      semanticGuard: 'off',
      passed: false,
    });
    expect(report.scenarios[0]?.notes).toContain('SemanticGuard off: no scripted judge');
  });

  it.skipIf(!hasMysql && !process.env.CI)(
    'builds a world of the scenario own: its MySQL database (dropped afterwards), generated logs, tenant-isolated probes',
    async () => {
      const root = await tempDir('eval-e2e-');
      const id = `own-world-${Math.random().toString(36).slice(2, 8)}`;
      writeScenario(
        root,
        {
          id,
          title: '自己的世界',
          category: 'large-logs',
          expected: { outcome: 'ABSTAIN' },
          probes: [
            {
              tool: 'query_mysql',
              input: { query_name: 'recent_deploys', params: { since: '2026-11-30T00:00:00+08:00' } },
              expect: 'EVIDENCE',
              mustContain: ['checkout-7.1'],
            },
            {
              tool: 'query_logs',
              input: {
                service: 'checkout',
                start_time: '2026-11-30T14:00:00+08:00',
                end_time: '2026-11-30T14:30:00+08:00',
                keyword: 'needle',
              },
              expect: 'EVIDENCE',
              mustContain: ['needle for E1001'],
            },
            {
              tool: 'query_logs',
              input: {
                service: 'checkout',
                start_time: '2026-11-30T14:00:00+08:00',
                end_time: '2026-11-30T14:30:00+08:00',
                keyword: 'E2002 secret',
              },
              expect: 'EMPTY',
            },
            { tool: 'lookup_knowledge', input: { query: '订单失败' }, expect: 'EMPTY' },
          ],
        },
        {
          'world/mysql/seed.sql':
            'CREATE TABLE deploys (enterprise_id VARCHAR(32) NOT NULL, version VARCHAR(32) NOT NULL, deployed_at DATETIME NOT NULL);\n' +
            "INSERT INTO deploys VALUES ('E1001', 'checkout-7.1', '2026-11-30 06:00:00'), ('E2002', 'checkout-9.9', '2026-11-30 06:00:00');\n",
          'world/mysql/catalog.json': [
            {
              name: 'recent_deploys',
              description: '发布记录',
              sql: 'SELECT version, deployed_at FROM deploys WHERE enterprise_id = :enterprise_id AND deployed_at >= :since',
              params: { since: { type: 'datetime', description: '起始时间' } },
              max_rows: 10,
            },
          ],
          'world/logs/generate.json': {
            files: [
              {
                name: 'checkout.jsonl',
                service: 'checkout',
                seed: 3,
                lines: 20_000,
                start: '2026-11-30T05:00:00Z',
                end: '2026-11-30T07:00:00Z',
                enterprises: ['E1001', 'E2002'],
                noise: [{ weight: 1, level: 'INFO', message: 'ok id={int:1-99}' }],
                events: [
                  {
                    from: '2026-11-30T06:10:00Z',
                    to: '2026-11-30T06:11:00Z',
                    everyMs: 30_000,
                    enterpriseId: 'E1001',
                    level: 'ERROR',
                    message: 'needle for E1001',
                  },
                  {
                    from: '2026-11-30T06:10:00Z',
                    to: '2026-11-30T06:11:00Z',
                    everyMs: 30_000,
                    enterpriseId: 'E2002',
                    level: 'ERROR',
                    message: 'needle: E2002 secret',
                  },
                ],
              },
            ],
          },
        },
      );
      const { code, stdout } = await runEvalCli(['--scenarios', root, '--json']);
      const report = JSON.parse(stdout) as EvalReport;
      const run = report.scenarios[0];
      expect(run?.error ?? null).toBeNull();
      expect(run?.probes.map((probe) => [probe.got, probe.passed])).toEqual([
        ['OK', true],
        ['OK', true],
        ['EMPTY', true],
        ['EMPTY', true],
      ]);
      expect(run).toMatchObject({ status: 'PROBES_ONLY', passed: true });
      expect(run?.notes).toContain('20000 log lines generated');
      expect(code).toBe(0);
      // Generated data goes to a scratch folder, never into the scenario's own.
      expect(readdirSync(join(root, id, 'world', 'logs'))).toEqual(['generate.json']);
      const admin = createMysqlPool({ url: MYSQL_TEST_URL, connectionLimit: 1 });
      try {
        const [rows] = await admin.query(`SHOW DATABASES LIKE 'eval\\_${id.replace(/-/g, '\\_')}\\_%'`);
        expect(rows).toEqual([]);
      } finally {
        await admin.end();
      }
    },
  );

  it('runs a follow-up scenario: the previous turn first in the same session, then the question that continues it', async () => {
    const root = await tempDir('eval-e2e-');
    const abstain = JSON.stringify({
      conclusion: null,
      analysis: [],
      action_plan: [],
      recommendations: [],
      limitations: { checked_scope: [], missing_info: ['需要回滚后的监控数据才能判断是否恢复'] },
    });
    const finalRound = {
      ...demo.responses[demo.responses.length - 1],
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: abstain, reasoning_content: '' },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
    };
    writeScenario(
      root,
      {
        id: 'follow-up',
        title: '追问',
        category: 'follow-up',
        previousTurn: { query: demo.query },
        query: '回滚之后恢复了吗？',
        expected: { outcome: 'ABSTAIN', mustNotClaim: ['已经恢复'] },
        probes: [poolProbe],
      },
      {
        'scripted.json': {
          responses: [finalRound],
          previousTurn: { responses: demo.responses, judge: demo.judgeResponses },
        },
      },
    );
    const { code, stdout } = await runEvalCli(['--scenarios', root, '--json']);
    const report = JSON.parse(stdout) as EvalReport;
    expect(report.scenarios[0]).toMatchObject({ status: 'RAN', verdict: 'CORRECT', semanticGuard: 'enforce' });
    expect(report.scenarios[0]?.usage.modelCalls).toBe(demo.responses.length + demo.judgeResponses.length + 1);
    expect(code).toBe(0);
  });

  it('gives a world without mysql/ no database: query_mysql answers NOT_CONFIGURED, never the example rows', async () => {
    const root = await tempDir('eval-e2e-');
    writeScenario(
      root,
      {
        id: 'no-mysql',
        title: '没有数据库',
        expected: { outcome: 'ABSTAIN' },
        probes: [
          {
            tool: 'query_mysql',
            input: { query_name: 'recent_deploys', params: { since: '2026-11-29T00:00:00+08:00' } },
            expect: 'EMPTY',
          },
        ],
      },
      { 'world/knowledge/.keep': '' },
    );
    const { stdout } = await runEvalCli(['--scenarios', root, '--json']);
    const report = JSON.parse(stdout) as EvalReport;
    expect(report.scenarios[0]?.probes[0]?.got).toBe('ERROR:NOT_CONFIGURED');
  });

  it('refuses hostile probe inputs at the tool boundary: another tenant named in the input, an oversized window', async () => {
    const root = await tempDir('eval-e2e-');
    const window = { start_time: '2026-11-30T14:00:00+08:00', end_time: '2026-11-30T15:00:00+08:00' };
    writeScenario(root, {
      id: 'hostile-probes',
      title: '恶意探针',
      expected: { outcome: 'ABSTAIN' },
      probes: [
        {
          tool: 'query_logs',
          input: { service: 'payment-gateway', ...window, enterprise_id: 'E2002' },
          expect: 'EVIDENCE',
        },
        {
          tool: 'query_logs',
          input: { service: 'payment-gateway', start_time: '2026-11-28T00:00:00+08:00', end_time: window.end_time },
          expect: 'EVIDENCE',
        },
        { tool: 'query_mysql', input: { query_name: "x' OR '1'='1", params: {} }, expect: 'EVIDENCE' },
      ],
    });
    const { code, stdout } = await runEvalCli(['--scenarios', root, '--json']);
    const report = JSON.parse(stdout) as EvalReport;
    expect(report.scenarios[0]?.probes.map((probe) => probe.got)).toEqual([
      'INVALID_INPUT:input.enterprise_id',
      'INVALID_INPUT:input.end_time',
      'INVALID_INPUT:input.query_name',
    ]);
    expect(code).toBe(1);
  });

  it('never prints the credentials of a MySQL URL or a model key it was given', async () => {
    const root = await tempDir('eval-e2e-');
    writeScenario(root, { id: 'any', title: '任意', expected: { outcome: 'ABSTAIN' } });
    const mysql = await runEvalCli(['--scenarios', root, '--mysql', 'mysql://root:s3cret-pw@127.0.0.1:1/x']);
    expect(mysql.code).toBe(64);
    expect(`${mysql.stdout}${mysql.stderr}`).not.toContain('s3cret-pw');
    const server = await startDeepSeekServer([...demo.responses], [...demo.judgeResponses]);
    try {
      writeScenario(root, { id: 'any', title: '任意', expected: { outcome: 'ABSTAIN' }, probes: [poolProbe] });
      const live = await runEvalCli(['--scenarios', root, '--live', '--html', join(root, 'card.html')], {
        DIAGNOSIS_MODEL_BASE_URL: server.baseURL,
        DIAGNOSIS_MODEL_API_KEY: 'sk-live-secret-0123456789',
      });
      expect(`${live.stdout}${live.stderr}${readFileSync(join(root, 'card.html'), 'utf8')}`).not.toContain(
        'sk-live-secret',
      );
    } finally {
      await server.close();
    }
  });

  it('refuses a scenario linking out of its folder, or a seed leaving its database, in one line with exit 64', async () => {
    for (const [id, prepare] of [
      ['linked', (dir: string) => symlinkSync('/etc/hostname', join(dir, 'world/knowledge/leak.md'))],
      ['seeded', (dir: string) => writeFileSync(join(dir, 'world/mysql/seed.sql'), 'USE mysql;\nDROP TABLE user;')],
    ] as const) {
      const root = await tempDir('eval-e2e-');
      writeScenario(
        root,
        { id, title: '任意', expected: { outcome: 'ABSTAIN' } },
        {
          'world/knowledge/runbook.md': '# 手册',
          'world/mysql/catalog.json': [],
        },
      );
      prepare(join(root, id));
      const { code, stderr, stdout } = await runEvalCli(['--scenarios', root]);
      expect(code, id).toBe(64);
      expect(stderr.trim().split('\n'), id).toHaveLength(1);
      expect(stderr).toMatch(new RegExp(`^eval: ${id}: `));
      expect(`${stdout}${stderr}`).not.toMatch(/USE mysql|TABLE user/);
    }
  });

  it('answers --help, and refuses bad options and corpora in one line with exit 2', async () => {
    expect((await runEvalCli(['--help'])).code).toBe(0);
    expect((await runEvalCli(['--help'])).stdout).toContain('--scenarios DIR');
    for (const args of [
      ['--bogus'],
      ['--concurrency', '0'],
      ['--concurrency', '1e3'],
      ['--price', 'input=free'],
      ['--scenarios', '/nonexistent/corpus'],
      ['--only', 'no-such-scenario'],
    ]) {
      const { code, stderr, stdout } = await runEvalCli(args);
      expect(code, args.join(' ')).toBe(64);
      expect(stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(stderr).toMatch(/^eval: /);
      expect(stdout).toBe('');
    }
    const root = await tempDir('eval-e2e-');
    writeScenario(root, { id: 'any', title: '任意', expected: { outcome: 'ABSTAIN' } });
    const live = await runEvalCli(['--scenarios', root, '--live'], { DIAGNOSIS_MODEL_API_KEY: undefined });
    expect(live).toMatchObject({ code: 64 });
    expect(live.stderr).toContain('DIAGNOSIS_MODEL_API_KEY');
  });
});

describe('npm run eval -- --live', () => {
  it('runs every scenario against the configured model and stops starting scenarios at the total token cap', async () => {
    const root = await tempDir('eval-e2e-');
    const expected = { outcome: 'DIAGNOSIS', rootCause: { anyOf: [['连接池', '耗尽']] } };
    writeScenario(root, { id: 'a-first', title: '一', expected, probes: [poolProbe] });
    writeScenario(root, { id: 'b-second', title: '二', expected, probes: [poolProbe] });
    // NOTE: "live" here is the loopback server, as a model endpoint the runner knows nothing about; it plays the
    // demo's conversation once, so a second run would find the script exhausted — the cap must stop it first.
    const server = await startDeepSeekServer([...demo.responses], [...demo.judgeResponses]);
    try {
      const { code, stdout } = await runEvalCli(
        ['--scenarios', root, '--live', '--concurrency', '1', '--json', '--total-tokens', '1'],
        {
          DIAGNOSIS_MODEL_BASE_URL: server.baseURL,
          DIAGNOSIS_MODEL_API_KEY: 'sk-live-test',
          DIAGNOSIS_MODEL_ID: 'deepseek-v4-flash',
        },
      );
      const report = JSON.parse(stdout) as EvalReport;
      expect(report.mode).toBe('live');
      expect(report.scenarios[0]).toMatchObject({
        status: 'RAN',
        verdict: 'CORRECT',
        semanticGuard: 'enforce',
        measured: null,
      });
      expect(report.scenarios[1]).toMatchObject({ status: 'SKIPPED', notes: ['total token cap 1 reached'] });
      expect(server.requests.length).toBe(demo.responses.length);
      expect(server.headers[0]?.authorization).toBe('Bearer sk-live-test');
      expect(code).toBe(0);
    } finally {
      await server.close();
    }
  });
});
