/**
 * The MySQL adapter's dialect detection (`MYSQL_DIALECT=auto`, the default) caches the *promise* of the
 * first `SELECT VERSION()`. When that first probe fails (the connection drops, or the run's abort destroys the
 * connection mid-probe), the rejected promise is cached for the life of the Lambda instance, and every later
 * `query_mysql` of every tenant on that instance fails without ever reaching the database.
 */
import { createMysqlAdapter, parseMysqlCatalog } from '@diagnosis/core/adapters';
import { describe, expect, it } from 'vitest';

const catalog = parseMysqlCatalog([
  {
    name: 'payment_channels',
    description: 'channels',
    sql: 'SELECT channel FROM payment_channel_config WHERE enterprise_id = :enterprise_id',
    params: {},
    max_rows: 10,
  },
]);

/** A pool whose first connection is lost during `SELECT VERSION()`; every later connection works. */
function flakyPool() {
  let probes = 0;
  let executes = 0;
  const connection = () => ({
    threadId: 7,
    async query(sql: string | { sql: string }) {
      const text = typeof sql === 'string' ? sql : sql.sql;
      if (text === 'SELECT VERSION()') {
        probes += 1;
        if (probes === 1) throw Object.assign(new Error('Connection lost'), { code: 'PROTOCOL_CONNECTION_LOST' });
        return [[['10.11.6-MariaDB']], []];
      }
      return [[], []];
    },
    async execute() {
      executes += 1;
      return [[['ALIPAY']], [{ name: 'channel' }]];
    },
    release() {},
    destroy() {},
  });
  const pool = { getConnection: async () => connection(), query: async () => [[], []] };
  return { pool, stats: () => ({ probes, executes }) };
}

const call = () => ({
  runId: 'r',
  sessionId: 's',
  enterpriseId: 'E2002',
  toolCallId: 'c',
  toolName: 'query_mysql' as const,
  input: { query_name: 'payment_channels', params: {} },
  signal: new AbortController().signal,
});

describe('MySQL dialect detection', () => {
  it('recovers after one failed SELECT VERSION() instead of failing every later call on the instance', async () => {
    const { pool, stats } = flakyPool();
    // biome-ignore lint/suspicious/noExplicitAny: a fake pool
    const adapter = createMysqlAdapter({ pool: pool as any, catalog, dialect: 'auto' });
    const first = await adapter.execute(call());
    expect(first).toMatchObject({ status: 'ERROR', code: 'UNAVAILABLE' });
    // Another run (another tenant, later) on the same warm instance: the database is healthy again.
    const second = await adapter.execute(call());
    expect(stats().probes).toBeGreaterThanOrEqual(2);
    expect(second).toMatchObject({ status: 'OK' });
  });
});
