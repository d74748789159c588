import { inspect } from 'node:util';
import { createMysqlPool } from '@diagnosis/core/adapters';
import { describe, expect, it } from 'vitest';

const PASSWORD = 'P@ss/w#rd%';

function thrownBy(url: string): unknown {
  try {
    const pool = createMysqlPool({ url });
    pool.end().catch(() => undefined);
  } catch (error) {
    return error;
  }
  throw new Error('the URL was accepted');
}

/** Everything an error could show: message, stack, cause chain and enumerable fields, serialized two ways. */
function everythingIn(error: unknown): string {
  const causes: unknown[] = [];
  for (let current: unknown = error; current !== undefined; current = (current as { cause?: unknown }).cause) {
    causes.push(current);
    if (causes.length > 5) break;
  }
  return causes
    .map((item) => `${String(item)}\n${(item as Error).stack}\n${JSON.stringify(item)}\n${inspect(item, { depth: 5 })}`)
    .join('\n');
}

describe('createMysqlPool', () => {
  it.each([
    ['an unencoded password', `mysql://u:${PASSWORD}@db:3306/p`],
    ['an out-of-range port', `mysql://u:${encodeURIComponent(PASSWORD)}@db:99999/p`],
    ['a bad percent escape', 'mysql://u:P%zzss@db:3306/p'],
    ['another scheme', `postgres://u:${encodeURIComponent(PASSWORD)}@db:3306/p`],
    ['no host', `mysql://u:${encodeURIComponent(PASSWORD)}@:3306/p`],
    ['no database', `mysql://u:${encodeURIComponent(PASSWORD)}@db:3306/`],
    ['a fragment', `mysql://u:${encodeURIComponent(PASSWORD)}@db:3306/p#x`],
  ])('refuses a URL with %s, naming MYSQL_URL and never the URL or password', (_label, url) => {
    const error = thrownBy(url);
    expect(error).toMatchObject({ name: 'SettingsError', keys: ['MYSQL_URL'] });
    expect((error as Error).message).toBe('invalid configuration: MYSQL_URL');
    expect((error as Error).cause).toBeUndefined();
    const shown = everythingIn(error);
    for (const secret of ['P@ss', 'w#rd', 'zzss', encodeURIComponent(PASSWORD), url]) {
      expect(shown).not.toContain(secret);
    }
  });

  it('accepts a percent-encoded password and hands it to the driver decoded', async () => {
    const pool = createMysqlPool({ url: `mysql://u:${encodeURIComponent(PASSWORD)}@db.internal:3307/payments` });
    try {
      const config = (pool as unknown as { pool: { config: { connectionConfig: Record<string, unknown> } } }).pool
        .config.connectionConfig;
      expect(config).toMatchObject({
        user: 'u',
        password: PASSWORD,
        host: 'db.internal',
        port: 3307,
        database: 'payments',
      });
    } finally {
      await pool.end();
    }
  });
});
