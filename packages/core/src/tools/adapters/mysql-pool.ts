import { createPool, type Pool } from 'mysql2/promise';
import { SettingsError } from '../../errors.ts';

export interface MysqlPoolOptions {
  /** `mysql://user:password@host:port/database`, reserved characters percent-encoded; never logged. */
  url: string;
  connectionLimit?: number;
  connectTimeoutMs?: number;
}

/**
 * The pool the MySQL adapter expects, created once per cold start: big integers as strings (no precision loss),
 * DATETIME read as UTC, a bounded connection count and an unbounded wait queue (the adapter's signal bounds waits).
 * A URL that is not exactly of the documented form throws a `SettingsError` naming `MYSQL_URL` only.
 */
export function createMysqlPool(options: MysqlPoolOptions): Pool {
  const address = parseMysqlUrl(options.url);
  return createPool({
    ...address,
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

interface MysqlAddress {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
}

/**
 * NOTE: the URL is parsed here, not by mysql2, and every failure becomes the same error without a cause: Node's
 * `TypeError: Invalid URL` carries the whole URL in its `input` field, and a password with an unencoded `#`, `/` or
 * `@` does not fail at all but silently names another host (`mysql://u:P@ss/w#rd@db/p` is host `ss`, password `P`).
 */
function parseMysqlUrl(url: string): MysqlAddress {
  const address = tryParseMysqlUrl(url);
  if (address === undefined) throw new SettingsError(['MYSQL_URL']);
  return address;
}

function tryParseMysqlUrl(url: string): MysqlAddress | undefined {
  // A raw `#` or `?` would cut the text short (a fragment, a query): in a password it must be percent-encoded.
  if (/[#?]/.test(url) || !URL.canParse(url)) return undefined;
  const parsed = new URL(url);
  if (parsed.protocol !== 'mysql:' || parsed.hostname === '') return undefined;
  const port = parsed.port === '' ? 3306 : Number(parsed.port);
  const database = decode(parsed.pathname.slice(1));
  const user = decode(parsed.username);
  const password = decode(parsed.password);
  if (database === undefined || user === undefined || password === undefined) return undefined;
  if (database === '' || database.includes('/') || user === '') return undefined;
  const host = parsed.hostname.startsWith('[') ? parsed.hostname.slice(1, -1) : parsed.hostname;
  return { host, port, user, password, database };
}

function decode(component: string): string | undefined {
  try {
    return decodeURIComponent(component);
  } catch {
    return undefined;
  }
}
