import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMysqlPool } from '@diagnosis/core/adapters';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startBin } from '../../support/cli-process.ts';
import { loadExampleMysql, startDeepSeekServer, wireText, wireToolCalls } from '../../support/deepseek-server.ts';
import { MYSQL_TEST_URL, mariadbAvailable, randomSuffix } from '../../support/mariadb.ts';

const mysqlReachable = await mariadbAvailable();
const database = `diag_cli_exit_${randomSuffix()}`;
const mysqlUrl = MYSQL_TEST_URL.replace(/\/[^/]*$/, `/${database}`);
let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'diagnosis-mysql-exit-'));
  if (!mysqlReachable) return;
  const admin = createMysqlPool({ url: MYSQL_TEST_URL, connectionLimit: 1 });
  await admin.query(`CREATE DATABASE ${database}`);
  await admin.end();
  await loadExampleMysql(mysqlUrl);
});
afterAll(async () => {
  rmSync(dataDir, { recursive: true, force: true });
  if (!mysqlReachable) return;
  const admin = createMysqlPool({ url: MYSQL_TEST_URL, connectionLimit: 1 });
  await admin.query(`DROP DATABASE IF EXISTS ${database}`);
  await admin.end();
});

describe('diagnosis diagnose with MYSQL_URL (issue 32 item 12)', () => {
  it.skipIf(!mysqlReachable)('exits after printing its result once query_mysql used the pool', async () => {
    const server = await startDeepSeekServer([
      wireToolCalls([
        {
          id: 'call_00_MysqlPaymentChannels0001',
          name: 'query_mysql',
          arguments: { input: { query_name: 'payment_channels', params: {} } },
        },
      ]),
      wireText('not a Draft: the run ends with its fallback report'),
    ]);
    const bin = startBin(['diagnose', 'E1001 的支付通道配置是什么？', '--json'], {
      DIAGNOSIS_LOCAL_DATA: dataDir,
      DYNAMODB_ENDPOINT: inject('dynamodbEndpoint'),
      DIAGNOSIS_TABLE_NAME: `cli-exit-${randomSuffix()}`,
      DIAGNOSIS_MODEL_BASE_URL: server.baseURL,
      DIAGNOSIS_MODEL_API_KEY: 'sk-cli-exit-0123456789',
      SEMANTIC_GUARD: 'off',
      MYSQL_URL: mysqlUrl,
    });
    try {
      await bin.matches('stdout', /"status"/);
      // NOTE: the process printed its result; it must now end by itself (a pool left open keeps it alive forever,
      // and this test then fails on its time limit).
      const { code, stdout } = await bin.done;
      expect(code).toBe(2);
      const result = JSON.parse(stdout) as { status: string; usage: { toolCalls: number } };
      expect(result.status).toBe('FALLBACK');
      expect(result.usage.toolCalls).toBe(1);
      // The query really reached MariaDB: the model's second round carries its rows.
      expect(JSON.stringify(server.requests[1])).toContain('\\"evidence_status\\":\\"OK\\"');
      expect(JSON.stringify(server.requests[1])).toContain('alipay');
    } finally {
      bin.child.kill('SIGKILL');
      await server.close();
    }
  });
});
