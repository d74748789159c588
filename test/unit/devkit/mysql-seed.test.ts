import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseMysqlSeed } from '@diagnosis/devkit';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../../..');
const statementsOf = (sql: string) => {
  const parsed = parseMysqlSeed(sql);
  if (!parsed.ok) throw new Error(parsed.problem);
  return parsed.statements;
};
const problemOf = (sql: string) => {
  const parsed = parseMysqlSeed(sql);
  if (parsed.ok) throw new Error('not refused');
  return parsed.problem;
};

describe('parseMysqlSeed', () => {
  it('accepts every committed seed (the example world’s and each scenario’s)', () => {
    const seeds = [
      join(ROOT, 'examples/mysql/seed.sql'),
      ...readdirSync(join(ROOT, 'eval/scenarios'))
        .map((id) => join(ROOT, 'eval/scenarios', id, 'world/mysql/seed.sql'))
        .filter((path) => {
          try {
            readFileSync(path);
            return true;
          } catch {
            return false;
          }
        }),
    ];
    expect(seeds.length).toBeGreaterThan(5);
    for (const seed of seeds) expect(statementsOf(readFileSync(seed, 'utf8')).length, seed).toBeGreaterThan(0);
  });

  it('splits on semicolons outside quotes, backticks and comments', () => {
    expect(
      statementsOf(
        [
          '-- a header; with a semicolon',
          "CREATE TABLE `semi;colon` (note VARCHAR(20) DEFAULT 'a;b');",
          "INSERT INTO `semi;colon` VALUES ('it''s; fine'), ('back\\\\slash\\'; still'), (\"dq;\");",
          '/* a block; comment */ DROP TABLE IF EXISTS t2;',
          '-- the end; nothing after',
        ].join('\n'),
      ),
    ).toEqual([
      "-- a header; with a semicolon\nCREATE TABLE `semi;colon` (note VARCHAR(20) DEFAULT 'a;b')",
      "INSERT INTO `semi;colon` VALUES ('it''s; fine'), ('back\\\\slash\\'; still'), (\"dq;\")",
      '/* a block; comment */ DROP TABLE IF EXISTS t2',
    ]);
  });

  it.each([
    ['USE of another database', 'CREATE TABLE t (a INT); USE mysql; INSERT INTO user VALUES (1);', 'statement 2: only'],
    ['CREATE DATABASE', 'CREATE DATABASE other;', 'statement 1: only'],
    ['CREATE SCHEMA', 'create schema other', 'statement 1: only'],
    ['DROP DATABASE', 'DROP DATABASE test;', 'statement 1: only'],
    ['GRANT', "GRANT ALL ON *.* TO 'x'@'%';", 'statement 1: only'],
    ['a table of another database', 'INSERT INTO other.orders VALUES (1);', 'qualified name'],
    ['a backticked table of another database', 'DROP TABLE `mysql` . `user`;', 'qualified name'],
    ['a rename into another database', 'ALTER TABLE t RENAME TO other.t;', 'qualified name'],
    ['a copy of another database’s table', 'CREATE TABLE t LIKE other.t;', 'qualified name'],
    ['reading another table', 'INSERT INTO t SELECT * FROM information_schema.tables;', 'qualified name'],
    ['reading at all', 'CREATE TABLE t AS SELECT 1;', 'reads nothing'],
    ['reading a server file', "INSERT INTO t VALUES (LOAD_FILE('/etc/passwd'));", 'reads nothing'],
    ['an executable comment', 'CREATE TABLE t (a INT) /*!50000 , b INT */;', 'executable comment'],
    ['a MariaDB executable comment', '/*M! USE other */ CREATE TABLE t (a INT);', 'executable comment'],
    ['an unterminated quote', "INSERT INTO t VALUES ('open);", 'unterminated'],
    ['a stored procedure', 'DELIMITER //\nCREATE PROCEDURE p() BEGIN SELECT 1; END //\nDELIMITER ;', 'only'],
    ['a hash comment hiding a statement', 'CREATE TABLE t (a INT); # note; USE other', 'statement 3: only'],
  ])('refuses %s, naming the statement and never its text', (_label, sql, problem) => {
    const refused = problemOf(sql);
    expect(refused).toContain(problem);
    expect(refused).not.toMatch(/mysql\.|passwd|other\./);
  });

  it('keeps qualified-looking text inside literals and comments as data', () => {
    expect(
      statementsOf('-- see other.table\nINSERT INTO t VALUES (\'db.table\', "a.b", 1.5, `x.y`); /* other.t */'),
    ).toHaveLength(1);
  });
});
