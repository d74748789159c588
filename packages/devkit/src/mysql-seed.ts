/**
 * A MySQL seed file (the example world's, an eval scenario's `world/mysql/seed.sql`) as single statements, each
 * checked to stay inside the database it is loaded into. The file is split by `dbgate-query-splitter` (MySQL
 * options: `'…'`, `"…"` and `` `…` `` with their escapes, `--` and `/* … *\/` comments); every statement is then sent
 * on its own, never with `multipleStatements`. A seed creates, fills and drops tables, nothing else: a statement
 * that is not one of {@link SEED_STATEMENTS}, names a table of another database (`other.table`), or hides code in
 * an executable comment (`/*! … *\/`, which MySQL and MariaDB run) is refused, naming its number and never its text.
 */
import { mysqlSplitterOptions, splitQuery } from 'dbgate-query-splitter';

/** The statement kinds a seed may hold (by their leading keywords). */
export const SEED_STATEMENTS = Object.freeze([
  'CREATE TABLE',
  'CREATE INDEX',
  'CREATE UNIQUE INDEX',
  'DROP TABLE',
  'ALTER TABLE',
  'INSERT INTO',
  'REPLACE INTO',
  'UPDATE',
  'DELETE FROM',
  'TRUNCATE TABLE',
] as const);

/** The most statements one seed may hold. */
export const MAX_SEED_STATEMENTS = 10_000;

/** A seed that was refused: the message names the statement's number and the reason, never its text. */
export class SeedRefusedError extends Error {
  override readonly name = 'SeedRefusedError';
  readonly code = 'SEED_REFUSED';
}

export type SeedParse = { ok: true; statements: string[] } | { ok: false; problem: string };

/**
 * The statement's code with string literals and comments taken out (an identifier in backticks becomes `` `` ``),
 * or null when it holds an executable comment or an unterminated literal or comment.
 */
function codeOf(statement: string): string | null {
  let code = '';
  let index = 0;
  while (index < statement.length) {
    const char = statement[index] ?? '';
    const next = statement[index + 1] ?? '';
    if (char === '-' && next === '-') {
      const end = statement.indexOf('\n', index);
      index = end < 0 ? statement.length : end + 1;
      code += ' ';
    } else if (char === '#') {
      const end = statement.indexOf('\n', index);
      index = end < 0 ? statement.length : end + 1;
      code += ' ';
    } else if (char === '/' && next === '*') {
      if (statement[index + 2] === '!' || statement.startsWith('M!', index + 2)) return null;
      const end = statement.indexOf('*/', index + 2);
      if (end < 0) return null;
      index = end + 2;
      code += ' ';
    } else if (char === "'" || char === '"' || char === '`') {
      let end = index + 1;
      for (;;) {
        if (end >= statement.length) return null;
        const inside = statement[end];
        if (inside === '\\' && char !== '`') end += 2;
        else if (inside === char && statement[end + 1] === char) end += 2;
        else if (inside === char) break;
        else end += 1;
      }
      code += char === '`' ? '``' : "''";
      index = end + 1;
    } else {
      code += char;
      index += 1;
    }
  }
  return code;
}

/** Splits a seed file into statements and checks each one (see the module's comment). */
export function parseMysqlSeed(sql: string): SeedParse {
  const statements = (splitQuery(sql, mysqlSplitterOptions) as string[])
    .map((statement) => statement.trim())
    .filter((statement) => statement !== '');
  if (statements.length > MAX_SEED_STATEMENTS) {
    return { ok: false, problem: `more than ${MAX_SEED_STATEMENTS} statements` };
  }
  const kept: string[] = [];
  for (const [index, statement] of statements.entries()) {
    const number = index + 1;
    const code = codeOf(statement);
    if (code === null) {
      return { ok: false, problem: `statement ${number}: an executable comment or an unterminated quote or comment` };
    }
    // A part that is only comments (the file's last lines, say) is not sent at all.
    if (code.trim() === '') continue;
    const words = code.trim().toUpperCase().split(/\s+/);
    const kind = SEED_STATEMENTS.find((candidate) =>
      candidate.split(' ').every((word, position) => words[position] === word),
    );
    if (kind === undefined) {
      return {
        ok: false,
        problem: `statement ${number}: only ${SEED_STATEMENTS.join(', ')} may be in a seed (it stays in its own database)`,
      };
    }
    // NOTE: `name.name` (bare or in backticks) outside literals is a table of another database, or a column
    // qualified by one; a seed needs neither. Numbers (`1.5`) do not start with a letter.
    if (/(?:[A-Za-z_$][\w$]*|``)\s*\.\s*(?:[A-Za-z_$]|``)/.test(code)) {
      return {
        ok: false,
        problem: `statement ${number}: a qualified name (database.table) leaves the seed's database`,
      };
    }
    // NOTE: a seed writes literal rows; reading other tables or the server's files is no part of it.
    if (/\b(SELECT|LOAD_FILE|OUTFILE|DUMPFILE)\b/i.test(code)) {
      return { ok: false, problem: `statement ${number}: a seed writes literal rows, it reads nothing` };
    }
    kept.push(statement);
  }
  return { ok: true, statements: kept };
}
