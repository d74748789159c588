import type { Pool, PoolConnection } from 'mysql2/promise';

export interface RecordedStatement {
  sql: string;
  rows: number;
}

/**
 * A real pool whose connections note how many rows each statement returned, so a test can see what crossed the wire
 * (an adapter that trims rows afterwards would otherwise hide a missing server-side row cap).
 */
export function createRecordingPool(pool: Pool, recorded: RecordedStatement[]): Pool {
  const record = (connection: PoolConnection): PoolConnection =>
    new Proxy(connection, {
      get(target, key) {
        const value: unknown = Reflect.get(target, key);
        if (typeof value !== 'function') return value;
        if (key !== 'execute' && key !== 'query') return value.bind(target);
        return async (...args: unknown[]) => {
          const result = await value.apply(target, args);
          const first = args[0];
          const sql = typeof first === 'string' ? first : String((first as { sql?: unknown }).sql);
          if (Array.isArray(result[0])) recorded.push({ sql, rows: result[0].length });
          return result;
        };
      },
    });
  return new Proxy(pool, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key);
      if (key === 'getConnection') return async () => record(await target.getConnection());
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
