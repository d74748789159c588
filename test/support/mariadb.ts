import { createMysqlPool } from '@diagnosis/core/adapters';

export const MYSQL_TEST_URL = process.env.MYSQL_TEST_URL ?? 'mysql://root@127.0.0.1:3306/test';

/**
 * Whether the test MariaDB answers. When it does not: with CI set, the suite must fail (the service is part of CI);
 * without CI, it is skipped with a loud message (a laptop may have no MariaDB).
 */
export async function mariadbAvailable(): Promise<boolean> {
  const pool = createMysqlPool({ url: MYSQL_TEST_URL, connectionLimit: 1, connectTimeoutMs: 2_000 });
  try {
    await pool.query('SELECT 1');
    return true;
  } catch {
    if (process.env.CI) throw new Error(`MariaDB is required in CI but is not reachable at ${redact(MYSQL_TEST_URL)}`);
    console.warn(`\n!!! MariaDB not reachable at ${redact(MYSQL_TEST_URL)}: MySQL adapter tests are SKIPPED !!!\n`);
    return false;
  } finally {
    await pool.end().catch(() => undefined);
  }
}

function redact(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}

export function randomSuffix(): string {
  return Math.random().toString(36).slice(2, 10);
}
