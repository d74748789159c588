/**
 * The text-level reading of catalog SQL: comments, quoted text and `:name` placeholders. It follows MySQL's and
 * MariaDB's lexer where they agree and refuses the rest, because the server, not a parser, decides what runs.
 */

export type StrippedSql = { ok: true; sql: string } | { ok: false; fault: string };

const EXECUTABLE_COMMENT_FAULT = 'sql must not contain executable comments or optimizer hints';

/**
 * The SQL with every comment replaced by a space, trimmed. The catalog check reads this text and the adapter runs
 * this text, so a comment cannot hide or add anything between the two.
 *
 * NOTE: refused rather than guessed: `/*!`, `/*M!` (the server executes them) and `/*+` (optimizer hints); any
 * backslash (its meaning inside quotes depends on the server's `NO_BACKSLASH_ESCAPES`, and with it where a string
 * ends); unterminated quotes or comments; and `--` or `*\/` left over after stripping (`--` starts a comment only
 * before whitespace or a control character).
 */
export function stripSqlComments(sql: string): StrippedSql {
  if (sql.includes('\\')) return { ok: false, fault: 'sql must not contain backslashes' };
  let out = '';
  let index = 0;
  while (index < sql.length) {
    const char = sql[index] as string;
    if (char === "'" || char === '"' || char === '`') {
      const end = closingDoubledQuote(sql, index);
      if (end === undefined) return { ok: false, fault: 'sql has unterminated quoted text' };
      out += sql.slice(index, end);
      index = end;
      continue;
    }
    if (sql.startsWith('/*', index)) {
      if (sql.startsWith('/*!', index) || sql.startsWith('/*M!', index) || sql.startsWith('/*+', index)) {
        return { ok: false, fault: EXECUTABLE_COMMENT_FAULT };
      }
      const end = sql.indexOf('*/', index + 2);
      if (end === -1) return { ok: false, fault: 'sql has an unterminated comment' };
      out += ' ';
      index = end + 2;
      continue;
    }
    if (char === '#' || (sql.startsWith('--', index) && isCommentDashEnd(sql, index + 2))) {
      const end = sql.indexOf('\n', index);
      out += ' ';
      index = end === -1 ? sql.length : end;
      continue;
    }
    if (sql.startsWith('--', index) || sql.startsWith('*/', index)) {
      return { ok: false, fault: 'sql has comment markers the server could read differently' };
    }
    out += char;
    index += 1;
  }
  return { ok: true, sql: out.trim() };
}

/** `--` opens a comment when followed by whitespace, a control character or the end of the text. */
function isCommentDashEnd(sql: string, index: number): boolean {
  const code = sql.charCodeAt(index);
  return index >= sql.length || code <= 0x20 || code === 0x7f;
}

/** The index after the closing quote (a doubled quote stays inside), or undefined when the text ends first. */
function closingDoubledQuote(sql: string, start: number): number | undefined {
  const quote = sql[start];
  let index = start + 1;
  while (index < sql.length) {
    if (sql[index] !== quote) index += 1;
    else if (sql[index + 1] === quote) index += 2;
    else return index + 1;
  }
  return undefined;
}

/**
 * Replaces `:name` placeholders outside quoted text with `?` (or with what `marker` returns for a name), returning
 * the names in binding order.
 */
export function toPositional(
  sql: string,
  marker: (name: string) => string = () => '?',
): { sql: string; names: string[] } {
  const names: string[] = [];
  let out = '';
  let index = 0;
  while (index < sql.length) {
    const char = sql[index] as string;
    if (char === "'" || char === '"' || char === '`') {
      const end = closingQuote(sql, index);
      out += sql.slice(index, end);
      index = end;
      continue;
    }
    const match = char === ':' && sql[index + 1] !== ':' ? /^:([A-Za-z_][A-Za-z0-9_]*)/.exec(sql.slice(index)) : null;
    if (match?.[1] !== undefined && sql[index - 1] !== ':') {
      names.push(match[1]);
      out += marker(match[1]);
      index += match[0].length;
      continue;
    }
    out += char;
    index += 1;
  }
  return { sql: out, names };
}

function closingQuote(sql: string, start: number): number {
  const quote = sql[start];
  let index = start + 1;
  while (index < sql.length) {
    if (sql[index] === '\\') index += 2;
    else if (sql[index] === quote) return index + 1;
    else index += 1;
  }
  return sql.length;
}

/** The text outside quotes. */
export function stripQuoted(sql: string): string {
  let out = '';
  let index = 0;
  while (index < sql.length) {
    const char = sql[index] as string;
    if (char === "'" || char === '"' || char === '`') {
      index = closingQuote(sql, index);
      continue;
    }
    out += char;
    index += 1;
  }
  return out;
}
