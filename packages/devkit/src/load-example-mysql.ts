/**
 * `npm run examples:mysql`: loads the example world's tables and rows (examples/mysql/seed.sql) into the database
 * named by MYSQL_URL. It replaces those four tables; nothing else in the database is touched.
 */
import { readFile } from 'node:fs/promises';
import { createConnection } from 'mysql2/promise';
import { parseMysqlSeed, SeedRefusedError } from './mysql-seed.ts';

export async function loadExampleMysql(url: string): Promise<void> {
  await loadMysqlSeed(url, new URL('../../../examples/mysql/seed.sql', import.meta.url));
}

/**
 * Runs a seed file (DATETIMEs in UTC) in the database named by `url`, one checked statement at a time (see
 * `parseMysqlSeed`: no `multipleStatements`, nothing that leaves that database). A refused seed runs nothing.
 */
export async function loadMysqlSeed(url: string, seedPath: string | URL): Promise<void> {
  const parsed = parseMysqlSeed(await readFile(seedPath, 'utf8'));
  if (!parsed.ok) throw new SeedRefusedError(`the seed was refused: ${parsed.problem}`);
  const connection = await createConnection({ uri: url, timezone: 'Z' });
  try {
    for (const statement of parsed.statements) await connection.query(statement);
  } finally {
    await connection.end();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const url = process.env.MYSQL_URL;
  if (url === undefined || url.length === 0) {
    console.error('Set MYSQL_URL, e.g. MYSQL_URL=mysql://root@127.0.0.1:3306/test npm run examples:mysql');
    process.exit(1);
  }
  try {
    await loadExampleMysql(url);
    console.log('loaded the example world into the database of MYSQL_URL');
  } catch (error) {
    console.error(`could not load the example world: ${(error as { code?: string }).code ?? 'error'}`);
    process.exit(1);
  }
}
