import type { MysqlInput, ToolCallRequest } from '@diagnosis/core';
import { createMysqlAdapter, createMysqlPool, parseMysqlCatalog } from '@diagnosis/core/adapters';
import type { Pool } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MYSQL_TEST_URL, mariadbAvailable, randomSuffix } from '../support/mariadb.ts';
import { createRecordingPool, type RecordedStatement } from '../support/recording-pool.ts';

const available = await mariadbAvailable();
const EVENTS = `limit_events_${randomSuffix()}`;
const MAX_ROWS = 5;

const rowsSql = `SELECT id FROM ${EVENTS} WHERE enterprise_id = :enterprise_id`;
const slowSql = `SELECT SLEEP(:seconds) AS slept FROM ${EVENTS} WHERE enterprise_id = :enterprise_id AND id = 1`;

/** Every statement shape the catalog check accepts, built around a filtered SELECT. */
const shapes: [string, (select: string) => string][] = [
  ['a plain SELECT', (select) => select],
  ['leading comments', (select) => `/* why */ -- more\n# and more\n${select}`],
  ['a WITH clause', (select) => `WITH picked AS (${select}) SELECT * FROM picked`],
  ['parentheses', (select) => `(${select})`],
  ['a union in parentheses', (select) => `(${select}) UNION ALL (${select})`],
];

const catalog = () =>
  parseMysqlCatalog(
    shapes.flatMap(([, shape], index) => [
      { name: `rows_${index}`, description: '多行', sql: shape(rowsSql), params: {}, max_rows: MAX_ROWS },
      {
        name: `slow_${index}`,
        description: '慢查询',
        sql: shape(slowSql),
        params: { seconds: { type: 'integer', description: '秒', min: 0, max: 10 } },
        max_rows: 1,
      },
    ]),
  );

const call = (input: MysqlInput): ToolCallRequest<MysqlInput> => ({
  runId: 'r',
  sessionId: 's',
  enterpriseId: 'E1001',
  toolCallId: `call-${randomSuffix()}`,
  toolName: 'query_mysql',
  input,
  signal: new AbortController().signal,
});

describe.skipIf(!available)('createMysqlAdapter statement limits on MariaDB', () => {
  let pool: Pool;

  beforeAll(async () => {
    pool = createMysqlPool({ url: MYSQL_TEST_URL, connectionLimit: 2 });
    await pool.query(`CREATE TABLE ${EVENTS} (id INT PRIMARY KEY, enterprise_id VARCHAR(32))`);
    const rows = Array.from({ length: 40 }, (_, index) => [index + 1, 'E1001']);
    await pool.query(`INSERT INTO ${EVENTS} VALUES ?`, [rows]);
  });

  afterAll(async () => {
    await pool?.query(`DROP TABLE IF EXISTS ${EVENTS}`);
    await pool?.end();
  });

  it.each(shapes.map(([label], index) => [label, index] as const))(
    'receives at most max_rows + 1 rows from the server for %s',
    async (_label, index) => {
      const recorded: RecordedStatement[] = [];
      const adapter = createMysqlAdapter({ pool: createRecordingPool(pool, recorded), catalog: catalog() });
      const result = await adapter.execute(call({ query_name: `rows_${index}`, params: {} }));
      expect(result).toMatchObject({ status: 'OK', data: { truncated: true } });
      expect(result.status === 'OK' && result.data.rows.length).toBe(MAX_ROWS);
      const catalogStatements = recorded.filter((statement) => statement.sql.includes(EVENTS));
      expect(catalogStatements).toHaveLength(1);
      expect(catalogStatements[0]?.rows).toBe(MAX_ROWS + 1);
    },
  );

  it.each(shapes.map(([label], index) => [label, index] as const))(
    'stops a slow statement at the server-side time limit for %s',
    async (_label, index) => {
      const adapter = createMysqlAdapter({ pool, catalog: catalog(), statementTimeoutMs: 200 });
      const result = await adapter.execute(call({ query_name: `slow_${index}`, params: { seconds: 5 } }));
      // NOTE: 1969 is MariaDB's "max_statement_time exceeded": the server stopped it, not the harness.
      expect(result).toEqual({ status: 'ERROR', code: 'TIMEOUT', detail: 'mysql UNKNOWN (1969)' });
    },
  );
});
