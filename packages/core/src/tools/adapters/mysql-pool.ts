import { createPool, type Pool } from 'mysql2/promise';

export interface MysqlPoolOptions {
  /** `mysql://user:password@host:port/database`; never logged. */
  url: string;
  connectionLimit?: number;
  connectTimeoutMs?: number;
}

/**
 * The pool the MySQL adapter expects, created once per cold start: big integers as strings (no precision loss),
 * DATETIME read as UTC, a bounded connection count and an unbounded wait queue (the adapter's signal bounds waits).
 */
export function createMysqlPool(options: MysqlPoolOptions): Pool {
  return createPool({
    uri: options.url,
    connectionLimit: options.connectionLimit ?? 4,
    connectTimeout: options.connectTimeoutMs ?? 5_000,
    supportBigNumbers: true,
    bigNumberStrings: false,
    timezone: 'Z',
    dateStrings: false,
    waitForConnections: true,
    queueLimit: 0,
  });
}
