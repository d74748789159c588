import type { MysqlInput, ToolCallRequest } from '@diagnosis/core';
import { createMysqlAdapter, createMysqlPool, parseMysqlCatalog } from '@diagnosis/core/adapters';
import type { Pool } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MYSQL_TEST_URL, mariadbAvailable, randomSuffix } from '../support/mariadb.ts';

const available = await mariadbAvailable();
const suffix = randomSuffix();
const ORDERS = `iso_orders_${suffix}`;
const CI_ORDERS = `iso_ci_orders_${suffix}`;

const catalog = () =>
  parseMysqlCatalog([
    {
      name: 'order_detail',
      description: '按订单号查询',
      sql: `SELECT order_id, enterprise_id FROM ${ORDERS} WHERE enterprise_id = :enterprise_id AND order_id = :order_id`,
      params: { order_id: { type: 'string', description: '订单号', max_length: 64 } },
      max_rows: 5,
    },
    {
      name: 'echo',
      description: '回显参数',
      sql: `SELECT :probe AS probe, HEX(:probe) AS probe_hex FROM ${ORDERS} WHERE enterprise_id = :enterprise_id AND id = 1`,
      params: { probe: { type: 'string', description: '任意文本', max_length: 64 } },
      max_rows: 1,
    },
    {
      name: 'ci_orders',
      description: '大小写不敏感排序规则的表',
      sql: `SELECT order_id, enterprise_id FROM ${CI_ORDERS} WHERE enterprise_id = :enterprise_id ORDER BY order_id`,
      params: {},
      max_rows: 10,
    },
  ]);

const call = (input: MysqlInput, enterpriseId = 'E1001'): ToolCallRequest<MysqlInput> => ({
  runId: 'r',
  sessionId: 's',
  enterpriseId,
  toolCallId: `call-${randomSuffix()}`,
  toolName: 'query_mysql',
  input,
  signal: new AbortController().signal,
});

describe.skipIf(!available)('createMysqlAdapter tenant isolation on MariaDB', () => {
  let admin: Pool;
  let noBackslashEscapes: Pool;

  beforeAll(async () => {
    admin = createMysqlPool({ url: MYSQL_TEST_URL, connectionLimit: 2 });
    // NOTE: every connection of this pool runs with NO_BACKSLASH_ESCAPES (session only): a backslash is then an
    // ordinary character inside a string literal, so a client that escapes with backslashes is open to injection.
    noBackslashEscapes = createMysqlPool({ url: MYSQL_TEST_URL, connectionLimit: 2 });
    noBackslashEscapes.on('connection', (connection) => {
      // NOTE: mysql2 emits its callback-style connection here, whatever its typings say; commands queue in order, so
      // this runs before anything the adapter sends.
      const core = connection as unknown as { query(sql: string, callback: () => void): void };
      core.query("SET SESSION sql_mode = 'NO_BACKSLASH_ESCAPES'", () => undefined);
    });
    await admin.query(
      `CREATE TABLE ${ORDERS} (id INT PRIMARY KEY, order_id VARCHAR(64), enterprise_id VARCHAR(64), KEY (enterprise_id))`,
    );
    await admin.query(`INSERT INTO ${ORDERS} VALUES ?`, [
      [
        [1, 'E1001-O1', 'E1001'],
        [2, 'E1001-O2', 'E1001'],
        [3, 'E2002-O1', 'E2002'],
        [4, "x' OR 1=1 -- ", 'E2002'],
      ],
    ]);
    await admin.query(
      `CREATE TABLE ${CI_ORDERS} (order_id VARCHAR(64), enterprise_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci, KEY (enterprise_id))`,
    );
    await admin.query(`INSERT INTO ${CI_ORDERS} VALUES ?`, [
      [
        ['E1001-A', 'E1001'],
        ['e1001-B', 'e1001'],
        ['E1001-C', 'E1001 '],
      ],
    ]);
  });

  afterAll(async () => {
    await admin?.query(`DROP TABLE IF EXISTS ${ORDERS}, ${CI_ORDERS}`);
    await Promise.all([admin?.end(), noBackslashEscapes?.end()]);
  });

  it('runs the injection tests on connections that really use NO_BACKSLASH_ESCAPES', async () => {
    const [rows] = await noBackslashEscapes.query('SELECT @@SESSION.sql_mode AS mode');
    expect((rows as { mode: string }[])[0]?.mode).toContain('NO_BACKSLASH_ESCAPES');
  });

  it.each([
    ['a quote', "x' OR 1=1 -- "],
    ['an escaped quote', "x\\' OR 1=1 -- "],
    ['a trailing backslash', 'x\\'],
    ['backslashes and quotes', "\\\\'' OR ''='"],
    ['a double quote', 'x" OR 1=1 -- '],
    ['a NUL byte', "x\0' OR 1=1 -- "],
    ['unicode quotes', 'x＇ OR 1=1 -- ʼ'],
    ['a comment opener', "x' /*! OR 1=1 */ -- "],
  ])('returns no other tenant’s rows for %s when the server uses NO_BACKSLASH_ESCAPES', async (_label, orderId) => {
    const adapter = createMysqlAdapter({ pool: noBackslashEscapes, catalog: catalog(), dialect: 'mariadb' });
    const result = await adapter.execute(call({ query_name: 'order_detail', params: { order_id: orderId } }));
    expect(result).toEqual({ status: 'EMPTY' });
  });

  it('finds a row whose order id is literally an injection string, for its own tenant only', async () => {
    const adapter = createMysqlAdapter({ pool: noBackslashEscapes, catalog: catalog(), dialect: 'mariadb' });
    const input = { query_name: 'order_detail', params: { order_id: "x' OR 1=1 -- " } };
    expect(await adapter.execute(call(input, 'E2002'))).toMatchObject({
      status: 'OK',
      data: { rows: [["x' OR 1=1 -- ", 'E2002']] },
    });
    expect(await adapter.execute(call(input, 'E1001'))).toEqual({ status: 'EMPTY' });
  });

  it.each([
    ['quotes and backslashes', "a'b\"c\\d\\'e"],
    ['a NUL byte', 'a\0b'],
    ['CJK and emoji', '订单😀'],
  ])('delivers %s to the server byte for byte', async (_label, probe) => {
    const adapter = createMysqlAdapter({ pool: noBackslashEscapes, catalog: catalog(), dialect: 'mariadb' });
    const result = await adapter.execute(call({ query_name: 'echo', params: { probe } }));
    expect(result).toEqual({
      status: 'OK',
      data: {
        columns: ['probe', 'probe_hex'],
        rows: [[probe, Buffer.from(probe, 'utf8').toString('hex').toUpperCase()]],
        truncated: false,
      },
    });
  });

  it('compares the tenant as binary on a case-insensitive column', async () => {
    const adapter = createMysqlAdapter({ pool: admin, catalog: catalog(), dialect: 'mariadb' });
    expect(await adapter.execute(call({ query_name: 'ci_orders', params: {} }, 'E1001'))).toEqual({
      status: 'OK',
      data: { columns: ['order_id', 'enterprise_id'], rows: [['E1001-A', 'E1001']], truncated: false },
    });
  });

  it.each([
    ['lower case', 'e1001'],
    ['mixed case', 'E1001a'],
    ['a trailing space', 'E1001 '],
    ['a leading dash', '-E1001'],
    ['an empty id', ''],
    ['a NUL byte', 'E1001\0'],
    ['a non-ASCII letter', 'É1001'],
    ['65 characters', `E${'1'.repeat(64)}`],
  ])('answers INVALID_QUERY before any SQL for an enterprise id with %s', async (_label, enterpriseId) => {
    // NOTE: this pool cannot connect; any attempt to run SQL would answer UNAVAILABLE instead.
    const dead = createMysqlPool({ url: 'mysql://root@127.0.0.1:1/test', connectionLimit: 1, connectTimeoutMs: 500 });
    try {
      const adapter = createMysqlAdapter({ pool: dead, catalog: catalog(), dialect: 'mariadb' });
      expect(await adapter.execute(call({ query_name: 'ci_orders', params: {} }, enterpriseId))).toEqual({
        status: 'ERROR',
        code: 'INVALID_QUERY',
        detail: 'enterprise id is not canonical',
      });
    } finally {
      await dead.end();
    }
  });
});
