// NOTE: the MySQL grammar alone (276 KB) rather than every dialect's (2.5 MB): this runs in the Lambda bundle.
import sqlParser from 'node-sql-parser/build/mysql.js';
import type { MysqlParamDescriptor, MysqlQueryDescriptor } from '../evidence-adapter.ts';
import { MysqlCatalogError, parseCatalogShape, readCatalogJson } from './mysql-catalog-descriptors.ts';
import { stripQuoted, stripSqlComments, toPositional } from './mysql-sql-text.ts';
import { tenantFilterFaults } from './mysql-tenant-filter.ts';

export { MysqlCatalogError, toPositional };

/** One named, read-only query: what the model may choose, and the SQL it runs with bound parameters only. */
export interface MysqlCatalogEntry extends MysqlQueryDescriptor {
  sql: string;
  max_rows: number;
  /**
   * The SQL the adapter prepares: comments removed, every `:name` replaced by `?`, except `:enterprise_id`, which
   * becomes `CAST(? AS BINARY)` so the tenant compares byte for byte whatever the column's collation (a `_ci` column
   * would otherwise match `e1001` to `E1001`; MariaDB still uses the column's index). `placeholders` are the names
   * in binding order.
   */
  positionalSql: string;
  placeholders: readonly string[];
}

export const ENTERPRISE_PLACEHOLDER = 'enterprise_id';

/** Reads and validates a catalog file; any fault refuses the whole catalog. */
export async function loadMysqlCatalog(path: string): Promise<readonly MysqlCatalogEntry[]> {
  return parseMysqlCatalog(await readCatalogJson(path));
}

/**
 * Validates a catalog: the shape (valibot), then every SQL text with its comments removed (executable comments and
 * optimizer hints refused): exactly one SELECT (parsed), no INTO, no locking clause in any block, the tenant rule of
 * `tenantFilterFaults`, no top-level LIMIT beyond `max_rows` (it would override the server-side row cap), every
 * placeholder declared and every declared parameter used.
 */
export function parseMysqlCatalog(json: unknown): readonly MysqlCatalogEntry[] {
  const faults: string[] = [];
  const names = new Set<string>();
  const entries: MysqlCatalogEntry[] = [];
  for (const entry of parseCatalogShape(json)) {
    if (names.has(entry.name)) faults.push(`${entry.name}: duplicate name`);
    names.add(entry.name);
    const stripped = stripSqlComments(entry.sql);
    const entryFaults = stripped.ok ? sqlFaults(stripped.sql, entry.params, entry.max_rows) : [stripped.fault];
    faults.push(...entryFaults.map((fault) => `${entry.name}: ${fault}`));
    if (!stripped.ok || entryFaults.length > 0) continue;
    const { sql, names: placeholders } = toPositional(stripped.sql, (name) =>
      name === ENTERPRISE_PLACEHOLDER ? 'CAST(? AS BINARY)' : '?',
    );
    entries.push(Object.freeze({ ...entry, positionalSql: sql, placeholders: Object.freeze(placeholders) }));
  }
  if (faults.length > 0) throw new MysqlCatalogError(faults);
  return Object.freeze(entries);
}

type SqlNode = Record<string, unknown>;
const parser = new (
  sqlParser as unknown as { Parser: new () => { astify(sql: string, options: object): unknown } }
).Parser();

/** Faults of one comment-free SQL text. */
function sqlFaults(sql: string, params: Record<string, MysqlParamDescriptor>, maxRows: number): string[] {
  const faults: string[] = [];
  let ast: unknown;
  try {
    ast = parser.astify(sql, { database: 'MySQL' });
  } catch {
    return ['sql does not parse'];
  }
  if (Array.isArray(ast)) return ['sql must be exactly one statement'];
  const select = ast as SqlNode;
  if (select.type !== 'select') return ['sql must be a SELECT'];
  const blocks = selectBlocks(select);
  if (blocks.some((block) => hasInto(block))) faults.push('sql must not use INTO');
  if (blocks.some((block) => block.locking_read != null)) faults.push('sql must not lock rows');
  if (!topLevelLimitsWithin(select, maxRows))
    faults.push('a top-level LIMIT must be a number no greater than max_rows');
  if (/\?/.test(stripQuoted(sql))) faults.push('sql must use named placeholders only');
  const names = toPositional(sql).names;
  const used = new Set(names);
  const tenantCount = names.filter((name) => name === ENTERPRISE_PLACEHOLDER).length;
  faults.push(...tenantFilterFaults(select, ENTERPRISE_PLACEHOLDER, tenantCount));
  if (Object.hasOwn(params, ENTERPRISE_PLACEHOLDER)) faults.push('enterprise_id is bound by the run, not a parameter');
  for (const name of used) {
    if (name !== ENTERPRISE_PLACEHOLDER && !Object.hasOwn(params, name))
      faults.push(`placeholder :${name} is not declared`);
  }
  for (const name of Object.keys(params)) if (!used.has(name)) faults.push(`parameter ${name} is not used`);
  return faults;
}

/** Every SELECT block of the statement, however deeply nested. */
function selectBlocks(ast: unknown): SqlNode[] {
  const blocks: SqlNode[] = [];
  const seen = new Set<unknown>();
  const walk = (value: unknown): void => {
    if (typeof value !== 'object' || value === null || seen.has(value)) return;
    seen.add(value);
    if ((value as SqlNode).type === 'select') blocks.push(value as SqlNode);
    for (const child of Object.values(value)) walk(child);
  };
  walk(ast);
  return blocks;
}

function hasInto(block: SqlNode): boolean {
  const into = block.into as { position?: unknown; keyword?: unknown } | undefined;
  return into?.position != null || into?.keyword != null;
}

/**
 * NOTE: a LIMIT on the statement itself (on any UNION member, or after the UNION) overrides `sql_select_limit`, the
 * server-side row cap, so it must be a number no greater than `max_rows`. LIMITs inside subqueries and CTEs do not
 * change how many rows the statement returns.
 */
function topLevelLimitsWithin(ast: SqlNode, maxRows: number): boolean {
  for (let block: unknown = ast; typeof block === 'object' && block !== null; block = (block as SqlNode)._next) {
    for (const limit of [(block as SqlNode).limit, (block as SqlNode)._limit]) {
      const { seperator, value } = (limit ?? {}) as { seperator?: unknown; value?: unknown };
      if (!Array.isArray(value) || value.length === 0) continue;
      const count = (seperator === ',' ? value[1] : value[0]) as { type?: unknown; value?: unknown } | undefined;
      if (count?.type !== 'number' || !(Number(count.value) <= maxRows)) return false;
    }
  }
  return true;
}
