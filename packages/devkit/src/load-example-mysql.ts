/**
 * `npm run examples:mysql`: loads the example world's tables and rows (examples/mysql/seed.sql) into the database
 * named by MYSQL_URL. It replaces those four tables; nothing else in the database is touched.
 */
import { readFile } from 'node:fs/promises';
import { createConnection } from 'mysql2/promise';

export async function loadExampleMysql(url: string): Promise<void> {
  await loadMysqlSeed(url, new URL('../../../examples/mysql/seed.sql', import.meta.url));
}

/** Runs a seed file (statements separated by `;`, DATETIMEs in UTC) in the database named by `url`. */
export async function loadMysqlSeed(url: string, seedPath: string | URL): Promise<void> {
  const sql = await readFile(seedPath, 'utf8');
  const connection = await createConnection({ uri: url, multipleStatements: true, timezone: 'Z' });
  try {
    await connection.query(sql);
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
