/**
 * `loadMysqlSeed` on MariaDB: one statement at a time (no `multipleStatements`), in the database of its URL only; a
 * refused seed runs nothing at all.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMysqlPool } from '@diagnosis/core/adapters';
import { loadMysqlSeed } from '@diagnosis/devkit';
import type { Pool } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MYSQL_TEST_URL, mariadbAvailable, randomSuffix } from '../support/mariadb.ts';

const available = await mariadbAvailable();
const database = `diag_seed_${randomSuffix()}`;
const bystander = `diag_seed_other_${randomSuffix()}`;
const urlOf = (name: string) => MYSQL_TEST_URL.replace(/\/[^/]*$/, `/${name}`);

describe.skipIf(!available)('loadMysqlSeed', () => {
  let admin: Pool;
  let folder: string;
  const seed = (name: string, sql: string) => {
    const path = join(folder, name);
    writeFileSync(path, sql);
    return path;
  };
  const tablesOf = async (name: string) =>
    ((await admin.query(`SHOW TABLES FROM \`${name}\``))[0] as Record<string, string>[]).map(
      (row) => Object.values(row)[0],
    );

  beforeAll(async () => {
    admin = createMysqlPool({ url: MYSQL_TEST_URL, connectionLimit: 1 });
    await admin.query(`CREATE DATABASE ${database}`);
    await admin.query(`CREATE DATABASE ${bystander}`);
    await admin.query(`CREATE TABLE ${bystander}.kept (a INT)`);
    folder = mkdtempSync(join(tmpdir(), 'mysql-seed-'));
  });
  afterAll(async () => {
    if (folder !== undefined) rmSync(folder, { recursive: true, force: true });
    await admin?.query(`DROP DATABASE IF EXISTS ${database}`);
    await admin?.query(`DROP DATABASE IF EXISTS ${bystander}`);
    await admin?.end();
  });

  it('loads statements one at a time, semicolons inside literals kept', async () => {
    await loadMysqlSeed(
      urlOf(database),
      seed(
        'ok.sql',
        "DROP TABLE IF EXISTS notes;\nCREATE TABLE notes (id INT PRIMARY KEY, body VARCHAR(50));\nINSERT INTO notes VALUES (1, 'a; b'), (2, 'it''s');\n",
      ),
    );
    const [rows] = await admin.query(`SELECT id, body FROM ${database}.notes ORDER BY id`);
    expect(rows).toEqual([
      { id: 1, body: 'a; b' },
      { id: 2, body: "it's" },
    ]);
  });

  it.each([
    ['USE', `CREATE TABLE early (a INT);\nUSE ${bystander};\nDROP TABLE kept;`],
    ['CREATE DATABASE', `CREATE TABLE early (a INT);\nCREATE DATABASE diag_seed_made_${randomSuffix()};`],
    ['a qualified name', `CREATE TABLE early (a INT);\nDROP TABLE ${bystander}.kept;`],
    ['an executable comment', `CREATE TABLE early (a INT) /*!99999 ; DROP TABLE ${bystander}.kept */;`],
  ])('refuses a seed with %s before running any of it', async (_label, sql) => {
    await expect(loadMysqlSeed(urlOf(database), seed('bad.sql', sql))).rejects.toMatchObject({
      name: 'SeedRefusedError',
      code: 'SEED_REFUSED',
    });
    expect(await tablesOf(database)).not.toContain('early');
    expect(await tablesOf(bystander)).toEqual(['kept']);
  });
});
