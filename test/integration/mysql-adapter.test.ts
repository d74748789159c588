import type { AdapterResult, MysqlData, MysqlInput, ToolCallRequest } from '@diagnosis/core';
import {
  createMysqlAdapter,
  createMysqlPool,
  type MysqlCatalogEntry,
  parseMysqlCatalog,
} from '@diagnosis/core/adapters';
import type { Pool } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MYSQL_TEST_URL, mariadbAvailable, randomSuffix } from '../support/mariadb.ts';

const available = await mariadbAvailable();
const suffix = randomSuffix();
const ORDERS = `orders_${suffix}`;
const CELLS = `cells_${suffix}`;

function catalogFor(): readonly MysqlCatalogEntry[] {
  return parseMysqlCatalog([
    {
      name: 'failed_orders',
      description: '失败订单',
      sql: `SELECT order_id, status, channel, created_at FROM ${ORDERS} WHERE enterprise_id = :enterprise_id AND status = 'FAILED' AND created_at >= :since ORDER BY created_at DESC`,
      params: { since: { type: 'datetime', description: '起始时间' } },
      max_rows: 3,
    },
    {
      name: 'orders_by_channel',
      description: '按通道查询订单',
      sql: `SELECT order_id, status FROM ${ORDERS} WHERE enterprise_id = :enterprise_id AND channel = :channel ORDER BY order_id`,
      params: { channel: { type: 'string', description: '通道', max_length: 64 } },
      max_rows: 50,
    },
    {
      name: 'order_by_number',
      description: '按编号查询',
      sql: `SELECT order_id FROM ${ORDERS} WHERE enterprise_id = :enterprise_id AND id = :id`,
      params: { id: { type: 'integer', description: '编号', min: 1, max: 1000 } },
      max_rows: 5,
    },
    {
      name: 'cells',
      description: '各种类型的单元格',
      sql: `SELECT happened_at, payload, big, amount, note FROM ${CELLS} WHERE enterprise_id = :enterprise_id`,
      params: {},
      max_rows: 5,
    },
    {
      name: 'slow',
      description: '慢查询',
      sql: `SELECT SLEEP(:seconds) AS slept FROM ${ORDERS} WHERE enterprise_id = :enterprise_id AND id = 1`,
      params: { seconds: { type: 'integer', description: '秒', min: 0, max: 10 } },
      max_rows: 1,
    },
  ]);
}

const call = (
  input: MysqlInput,
  enterpriseId = 'E1001',
  signal = new AbortController().signal,
): ToolCallRequest<MysqlInput> => ({
  runId: 'r',
  sessionId: 's',
  enterpriseId,
  toolCallId: `call-${randomSuffix()}`,
  toolName: 'query_mysql',
  input,
  signal,
});

describe.skipIf(!available)('createMysqlAdapter on MariaDB', () => {
  let pool: Pool;
  let admin: Pool;

  beforeAll(async () => {
    admin = createMysqlPool({ url: MYSQL_TEST_URL, connectionLimit: 2 });
    pool = createMysqlPool({ url: MYSQL_TEST_URL, connectionLimit: 4 });
    await admin.query(
      `CREATE TABLE ${ORDERS} (id INT PRIMARY KEY, order_id VARCHAR(32), enterprise_id VARCHAR(32), status VARCHAR(16), channel VARCHAR(64), created_at DATETIME(3))`,
    );
    const rows: unknown[][] = [];
    for (let index = 1; index <= 5; index += 1) {
      rows.push([index, `E1001-O${index}`, 'E1001', 'FAILED', 'alipay', `2026-11-30 06:0${index}:00.000`]);
    }
    rows.push([6, 'E1001-O6', 'E1001', 'PAID', 'alipay', '2026-11-30 06:06:00.000']);
    rows.push([7, 'E2002-O1', 'E2002', 'FAILED', 'alipay', '2026-11-30 06:07:00.000']);
    rows.push([8, 'E2002-O2', 'E2002', 'FAILED', 'wechat', '2026-11-30 06:08:00.000']);
    await admin.query(`INSERT INTO ${ORDERS} VALUES ?`, [rows]);
    await admin.query(
      `CREATE TABLE ${CELLS} (enterprise_id VARCHAR(32), happened_at DATETIME, payload VARBINARY(16), big BIGINT UNSIGNED, amount DECIMAL(10,2), note TEXT)`,
    );
    await admin.query(
      `INSERT INTO ${CELLS} VALUES ('E1001', '2026-11-30 06:05:00', X'00FF10', 18446744073709551615, 12.50, NULL)`,
    );
  });

  afterAll(async () => {
    await admin?.query(`DROP TABLE IF EXISTS ${ORDERS}, ${CELLS}`);
    await Promise.all([pool?.end(), admin?.end()]);
  });

  const adapter = () => createMysqlAdapter({ pool, catalog: catalogFor(), dialect: 'auto', statementTimeoutMs: 1_000 });

  it('returns the enterprise’s rows newest first, converted, with truncation beyond max_rows', async () => {
    const result = await adapter().execute(
      call({ query_name: 'failed_orders', params: { since: '2026-11-30T14:00:00+08:00' } }),
    );
    expect(result).toEqual({
      status: 'OK',
      data: {
        columns: ['order_id', 'status', 'channel', 'created_at'],
        rows: [
          ['E1001-O5', 'FAILED', 'alipay', '2026-11-30T06:05:00.000Z'],
          ['E1001-O4', 'FAILED', 'alipay', '2026-11-30T06:04:00.000Z'],
          ['E1001-O3', 'FAILED', 'alipay', '2026-11-30T06:03:00.000Z'],
        ],
        truncated: true,
      },
    });
  });

  it('keeps each tenant to its own rows for the same query', async () => {
    const input = { query_name: 'failed_orders', params: { since: '2026-11-30T00:00:00Z' } };
    const other = (await adapter().execute(call(input, 'E2002'))) as { data: MysqlData };
    expect(other.data.rows.map((row) => row[0])).toEqual(['E2002-O2', 'E2002-O1']);
    expect(other.data.truncated).toBe(false);
  });

  it.each([
    ['a quote injection', "alipay' OR enterprise_id = 'E2002"],
    ['another tenant’s channel', 'wechat'],
    ['a comment injection', "alipay' -- "],
  ])('never returns another tenant’s data through a string parameter (%s)', async (_label, channel) => {
    const result = await adapter().execute(call({ query_name: 'orders_by_channel', params: { channel } }));
    const rows = result.status === 'OK' ? result.data.rows : [];
    expect(rows.every((row) => String(row[0]).startsWith('E1001'))).toBe(true);
  });

  it.each([
    ['an unknown query name', { query_name: 'drop_all', params: {} }],
    ['an integer out of range', { query_name: 'order_by_number', params: { id: 5_000 } }],
    ['a string for an integer', { query_name: 'order_by_number', params: { id: '1 OR 1=1' } }],
    ['a string over max_length', { query_name: 'orders_by_channel', params: { channel: 'c'.repeat(65) } }],
    [
      'an undeclared parameter',
      { query_name: 'orders_by_channel', params: { channel: 'alipay', enterprise_id: 'E2002' } },
    ],
    ['a datetime without offset', { query_name: 'failed_orders', params: { since: '2026-11-30 00:00:00' } }],
  ])('answers INVALID_QUERY for %s', async (_label, input) => {
    expect(await adapter().execute(call(input as MysqlInput))).toMatchObject({
      status: 'ERROR',
      code: 'INVALID_QUERY',
    });
  });

  it('answers EMPTY when nothing matches', async () => {
    expect(await adapter().execute(call({ query_name: 'orders_by_channel', params: { channel: 'unionpay' } }))).toEqual(
      {
        status: 'EMPTY',
      },
    );
  });

  it('converts dates to ISO strings, binary to a size, big integers to strings', async () => {
    const result = await adapter().execute(call({ query_name: 'cells', params: {} }));
    expect(result).toEqual({
      status: 'OK',
      data: {
        columns: ['happened_at', 'payload', 'big', 'amount', 'note'],
        rows: [['2026-11-30T06:05:00.000Z', '<binary 3 bytes>', '18446744073709551615', '12.50', null]],
        truncated: false,
      },
    });
  });

  it('refuses a write through a catalog entry that bypassed validation: the transaction is read-only', async () => {
    const [valid] = catalogFor();
    if (valid === undefined) throw new Error('no catalog entry');
    const rogue: MysqlCatalogEntry = {
      ...valid,
      name: 'rogue',
      positionalSql: `UPDATE ${ORDERS} SET status = 'PAID' WHERE enterprise_id = ?`,
      placeholders: ['enterprise_id'],
      params: {},
    };
    const rogueAdapter = createMysqlAdapter({ pool, catalog: [rogue], dialect: 'mariadb' });
    const result = await rogueAdapter.execute(call({ query_name: 'rogue', params: {} }));
    expect(result).toMatchObject({ status: 'ERROR', code: 'ACCESS_DENIED' });
    const [rows] = await admin.query(`SELECT COUNT(*) AS n FROM ${ORDERS} WHERE status = 'PAID'`);
    expect((rows as { n: number }[])[0]?.n).toBe(1);
  });

  it('cuts a slow statement at the server-side limit with TIMEOUT', async () => {
    const result = await adapter().execute(call({ query_name: 'slow', params: { seconds: 5 } }));
    expect(result).toMatchObject({ status: 'ERROR', code: 'TIMEOUT' });
    expect(JSON.stringify(result)).not.toContain('root');
  });

  it('answers TIMEOUT on abort mid-query and leaks no connection', async () => {
    const slowAdapter = createMysqlAdapter({
      pool,
      catalog: catalogFor(),
      dialect: 'mariadb',
      statementTimeoutMs: 10_000,
    });
    const controller = new AbortController();
    const pending = slowAdapter.execute(
      call({ query_name: 'slow', params: { seconds: 3 } }, 'E1001', controller.signal),
    );
    setTimeout(() => controller.abort(), 200);
    expect(await pending).toMatchObject({ status: 'ERROR', code: 'TIMEOUT' });

    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        adapter().execute(call({ query_name: 'orders_by_channel', params: { channel: 'alipay' } })),
      ),
    );
    expect(results.every((result) => result.status === 'OK')).toBe(true);
    // NOTE: mysql2 keeps its bookkeeping on the inner pool; every connection it holds must be free again.
    const inner = (
      pool as unknown as { pool: { _allConnections: { length: number }; _freeConnections: { length: number } } }
    ).pool;
    expect(inner._allConnections.length).toBeLessThanOrEqual(4);
    expect(inner._freeConnections.length).toBe(inner._allConnections.length);
  });

  it('answers TIMEOUT without touching the pool when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    expect(
      await adapter().execute(
        call({ query_name: 'orders_by_channel', params: { channel: 'alipay' } }, 'E1001', controller.signal),
      ),
    ).toMatchObject({ status: 'ERROR', code: 'TIMEOUT' });
  });

  it('completes 50 concurrent calls on a pool of 4', async () => {
    const shared = adapter();
    const results: AdapterResult<MysqlData>[] = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        shared.execute(
          call({ query_name: 'order_by_number', params: { id: (index % 8) + 1 } }, index % 2 === 0 ? 'E1001' : 'E2002'),
        ),
      ),
    );
    expect(results.every((result) => result.status === 'OK' || result.status === 'EMPTY')).toBe(true);
    expect(results.filter((result) => result.status === 'OK').length).toBeGreaterThan(0);
  });

  it('answers UNAVAILABLE without the connection string when the server cannot be reached', async () => {
    const dead = createMysqlPool({
      url: 'mysql://root:s3cret@127.0.0.1:1/test',
      connectionLimit: 1,
      connectTimeoutMs: 500,
    });
    try {
      const result = await createMysqlAdapter({ pool: dead, catalog: catalogFor(), dialect: 'mariadb' }).execute(
        call({ query_name: 'orders_by_channel', params: { channel: 'alipay' } }),
      );
      expect(result).toMatchObject({ status: 'ERROR', code: 'UNAVAILABLE' });
      expect(JSON.stringify(result)).not.toContain('s3cret');
    } finally {
      await dead.end();
    }
  });
});
