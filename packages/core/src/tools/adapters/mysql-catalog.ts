// NOTE: the MySQL grammar alone (276 KB) rather than every dialect's (2.5 MB): this runs in the Lambda bundle.
import sqlParser from 'node-sql-parser/build/mysql.js';
import type { MysqlParamDescriptor, MysqlQueryDescriptor } from '../evidence-adapter.ts';
import { MysqlCatalogError, parseCatalogShape, readCatalogJson } from './mysql-catalog-descriptors.ts';

export { MysqlCatalogError };

/** One named, read-only query: what the model may choose, and the SQL it runs with bound parameters only. */
export interface MysqlCatalogEntry extends MysqlQueryDescriptor {
  sql: string;
  max_rows: number;
  /** The SQL with every `:name` replaced by `?`, and the names in binding order. */
  positionalSql: string;
  placeholders: readonly string[];
}

export const ENTERPRISE_PLACEHOLDER = 'enterprise_id';

/** Reads and validates a catalog file; any fault refuses the whole catalog. */
export async function loadMysqlCatalog(path: string): Promise<readonly MysqlCatalogEntry[]> {
  return parseMysqlCatalog(await readCatalogJson(path));
}

/**
 * Validates a catalog: the shape (valibot), then every SQL text: exactly one SELECT (parsed), no INTO, no locking
 * clause, the `:enterprise_id` placeholder present, every placeholder declared and every declared parameter used.
 */
export function parseMysqlCatalog(json: unknown): readonly MysqlCatalogEntry[] {
  const faults: string[] = [];
  const names = new Set<string>();
  const entries: MysqlCatalogEntry[] = [];
  for (const entry of parseCatalogShape(json)) {
    if (names.has(entry.name)) faults.push(`${entry.name}: duplicate name`);
    names.add(entry.name);
    const entryFaults = sqlFaults(entry.sql, entry.params);
    faults.push(...entryFaults.map((fault) => `${entry.name}: ${fault}`));
    if (entryFaults.length > 0) continue;
    const { sql, names: placeholders } = toPositional(entry.sql);
    entries.push(Object.freeze({ ...entry, positionalSql: sql, placeholders: Object.freeze(placeholders) }));
  }
  if (faults.length > 0) throw new MysqlCatalogError(faults);
  return Object.freeze(entries);
}

type SqlAst = { type?: string; into?: { position?: unknown; keyword?: unknown }; locking_read?: unknown };
const parser = new (
  sqlParser as unknown as { Parser: new () => { astify(sql: string, options: object): unknown } }
).Parser();

function sqlFaults(sql: string, params: Record<string, MysqlParamDescriptor>): string[] {
  const faults: string[] = [];
  let ast: unknown;
  try {
    ast = parser.astify(sql, { database: 'MySQL' });
  } catch {
    return ['sql does not parse'];
  }
  if (Array.isArray(ast)) return ['sql must be exactly one statement'];
  const select = ast as SqlAst;
  if (select.type !== 'select') return ['sql must be a SELECT'];
  if (select.into?.position != null || select.into?.keyword != null) faults.push('sql must not use INTO');
  if (select.locking_read != null) faults.push('sql must not lock rows');
  if (/\?/.test(stripQuoted(sql))) faults.push('sql must use named placeholders only');
  const used = new Set(toPositional(sql).names);
  if (!used.has(ENTERPRISE_PLACEHOLDER)) faults.push('sql must filter on :enterprise_id');
  if (Object.hasOwn(params, ENTERPRISE_PLACEHOLDER)) faults.push('enterprise_id is bound by the run, not a parameter');
  for (const name of used) {
    if (name !== ENTERPRISE_PLACEHOLDER && !Object.hasOwn(params, name))
      faults.push(`placeholder :${name} is not declared`);
  }
  for (const name of Object.keys(params)) if (!used.has(name)) faults.push(`parameter ${name} is not used`);
  return faults;
}

/** Replaces `:name` placeholders outside quoted text with `?`, returning the names in binding order. */
export function toPositional(sql: string): { sql: string; names: string[] } {
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
      out += '?';
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

function stripQuoted(sql: string): string {
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
