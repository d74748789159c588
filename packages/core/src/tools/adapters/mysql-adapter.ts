import mysql, { type Pool, type PoolConnection } from 'mysql2/promise';
import { isEnterpriseId } from '../../run/ids.ts';
import type {
  AdapterResult,
  EvidenceAdapter,
  EvidenceErrorCode,
  MysqlCell,
  MysqlData,
  MysqlInput,
  MysqlQueryDescriptor,
  ToolCallRequest,
} from '../evidence-adapter.ts';
import { isValidMysqlParam } from '../tool-inputs.ts';
import { ENTERPRISE_PLACEHOLDER, type MysqlCatalogEntry } from './mysql-catalog.ts';

export type MysqlDialect = 'mariadb' | 'mysql';

export interface MysqlAdapterOptions {
  /** A mysql2/promise pool created once per cold start by the handler. */
  pool: Pool;
  catalog: readonly MysqlCatalogEntry[];
  /** Which server-side statement limit to use; 'auto' asks the server once (SELECT VERSION()). */
  dialect?: MysqlDialect | 'auto';
  /** Server-side time limit of one statement. */
  statementTimeoutMs?: number;
}

/**
 * `query_mysql` on a read-only catalog. Every query runs in `START TRANSACTION READ ONLY` with a server-side statement
 * limit and at most `max_rows + 1` rows, with the run's enterprise bound to `:enterprise_id` and the model's values
 * bound as parameters of a server-side prepared statement. It always rolls back and releases; an abort destroys the
 * connection.
 *
 * NOTE: never `connection.query({ sql, values })` for catalog SQL: mysql2 then escapes values into the text with
 * backslashes, and a server running `NO_BACKSLASH_ESCAPES` reads `x\' OR 1=1 -- ` as a quote that ends the string.
 * `execute` sends the values apart from the SQL, so no `sql_mode` changes what a value means.
 */
export function createMysqlAdapter(
  options: MysqlAdapterOptions,
): EvidenceAdapter<MysqlInput, MysqlData> & { catalog: readonly MysqlQueryDescriptor[] } {
  const { pool, statementTimeoutMs = 5_000 } = options;
  const byName = new Map(options.catalog.map((entry) => [entry.name, entry]));
  let dialect: Promise<MysqlDialect> | undefined =
    options.dialect === undefined || options.dialect === 'auto' ? undefined : Promise.resolve(options.dialect);

  const catalog = Object.freeze(
    options.catalog.map((entry) => ({ name: entry.name, description: entry.description, params: entry.params })),
  );

  return {
    catalog,
    async execute(call: ToolCallRequest<MysqlInput>): Promise<AdapterResult<MysqlData>> {
      // NOTE: the request boundary enforces the canonical enterprise id too; the adapter checks again before any SQL
      // because a case or padding variant could match another tenant's rows under a `_ci` collation.
      if (!isEnterpriseId(call.enterpriseId)) {
        return { status: 'ERROR', code: 'INVALID_QUERY', detail: 'enterprise id is not canonical' };
      }
      const entry = byName.get(call.input.query_name);
      if (entry === undefined) return { status: 'ERROR', code: 'INVALID_QUERY', detail: 'unknown query name' };
      const values = bindValues(entry, call.input.params, call.enterpriseId);
      if (values === undefined)
        return { status: 'ERROR', code: 'INVALID_QUERY', detail: 'parameters do not match the catalog' };
      if (call.signal.aborted) return { status: 'ERROR', code: 'TIMEOUT', detail: 'aborted before start' };

      const acquired = pool.getConnection();
      let connection: PoolConnection | undefined;
      try {
        connection = await abortable(acquired, call.signal);
      } catch (error) {
        return mysqlError(error);
      }
      if (connection === undefined) {
        // NOTE: a connection that arrives after the abort goes straight back to the pool.
        acquired.then((late) => late.release()).catch(() => undefined);
        return { status: 'ERROR', code: 'TIMEOUT', detail: 'aborted while waiting for a connection' };
      }
      // Statements that must run before the connection goes back to the pool; `query` adds to them.
      const cleanup = ['ROLLBACK'];
      const work = query(connection, entry, values, cleanup);
      const result = await abortable(work, call.signal);
      if (result !== undefined) {
        await closeConnection(connection, cleanup);
        return result;
      }
      // Aborted mid-query: the driver would wait for the server, so the connection is dropped at once and the
      // server is asked to stop the statement too.
      work.catch(() => undefined);
      connection.destroy();
      const threadId = connection.threadId;
      if (Number.isSafeInteger(threadId)) pool.query(`KILL QUERY ${threadId}`).catch(() => undefined);
      return { status: 'ERROR', code: 'TIMEOUT', detail: 'aborted by the harness' };
    },
  };

  async function query(
    connection: PoolConnection,
    entry: MysqlCatalogEntry,
    values: BoundValue[],
    cleanup: string[],
  ): Promise<AdapterResult<MysqlData>> {
    try {
      dialect ??= detectDialect(connection);
      const detection = dialect;
      // NOTE: a failed detection (a dropped connection, this run's abort) is forgotten, so the next call asks again:
      // one run's bad luck must not take MySQL away from every later run on this instance.
      const resolved = await detection.catch((error: unknown) => {
        if (dialect === detection) dialect = undefined;
        throw error;
      });
      const session = sessionLimits(resolved, entry, statementTimeoutMs);
      if (session !== undefined) {
        cleanup.push(session.reset);
        await connection.query(session.set);
      }
      const sql = limitStatement(resolved, entry, statementTimeoutMs);
      await connection.query('START TRANSACTION READ ONLY');
      const [rows, fields] = await connection.execute({ sql, values, rowsAsArray: true });
      const table = rows as unknown[][];
      const columns = (fields ?? []).map((field) => field.name);
      const kept = table.slice(0, entry.max_rows).map((row) => row.map(toCell));
      if (kept.length === 0) return { status: 'EMPTY' };
      return { status: 'OK', data: { columns, rows: kept, truncated: table.length > entry.max_rows } };
    } catch (error) {
      return mysqlError(error);
    }
  }
}

/** Runs the cleanup statements and releases; a connection whose cleanup fails is destroyed, never reused. */
async function closeConnection(connection: PoolConnection, cleanup: readonly string[]): Promise<void> {
  try {
    for (const statement of cleanup) await connection.query(statement);
    connection.release();
  } catch {
    connection.destroy();
  }
}

type BoundValue = string | ReturnType<typeof mysql.TypedParameter.BIGINT>;

/**
 * The values in placeholder order. Integers are sent as BIGINT: mysql2 would send a JavaScript number as DOUBLE,
 * which MySQL refuses where an integer is required (`LIMIT ?`). Strings and datetimes go as strings.
 */
function bindValues(entry: MysqlCatalogEntry, params: Record<string, unknown>, enterpriseId: string) {
  const values: BoundValue[] = [];
  for (const name of entry.placeholders) {
    if (name === ENTERPRISE_PLACEHOLDER) {
      values.push(enterpriseId);
      continue;
    }
    const descriptor = entry.params[name];
    const value = Object.hasOwn(params, name) ? params[name] : undefined;
    if (descriptor === undefined || !isValidMysqlParam(descriptor, value)) return undefined;
    if (descriptor.type === 'integer') values.push(mysql.TypedParameter.BIGINT(value as number));
    else values.push(descriptor.type === 'datetime' ? toUtcDatetime(value as string) : (value as string));
  }
  for (const name of Object.keys(params)) if (!Object.hasOwn(entry.params, name)) return undefined;
  return values;
}

/** ISO 8601 with offset → `YYYY-MM-DD HH:MM:SS.mmm` in UTC: the catalog's DATETIME columns are UTC. */
function toUtcDatetime(iso: string): string {
  return new Date(Date.parse(iso)).toISOString().replace('T', ' ').replace('Z', '');
}

/**
 * The text to prepare for a catalog entry. On MariaDB it carries the time limit and the row cap of `max_rows + 1`:
 * `SET STATEMENT max_statement_time=…, sql_select_limit=… FOR <sql>`, which MariaDB prepares like any statement and
 * which covers every shape the catalog accepts (SELECT, WITH, parentheses, UNION). On MySQL it is the SQL itself: the
 * limits are session variables (`sessionLimits`).
 */
export function limitStatement(dialect: MysqlDialect, entry: MysqlCatalogEntry, statementTimeoutMs: number): string {
  if (dialect === 'mysql') return entry.positionalSql;
  const seconds = Math.max(0.001, statementTimeoutMs / 1_000);
  return `SET STATEMENT max_statement_time=${seconds}, sql_select_limit=${entry.max_rows + 1} FOR ${entry.positionalSql}`;
}

/**
 * On MySQL, the statements that set the time limit and the row cap on the session before the catalog statement, and
 * reset them before the connection goes back to the pool; undefined on MariaDB (`limitStatement` carries them).
 *
 * NOTE: not the `MAX_EXECUTION_TIME` / `SET_VAR` hints: MySQL honours them only after the SELECT of the top-level
 * query block, which is not the first SELECT of a WITH statement, so a hint placed by text matching leaves some
 * shapes unlimited. The session variables apply to every top-level read-only SELECT, prepared ones included.
 */
export function sessionLimits(
  dialect: MysqlDialect,
  entry: MysqlCatalogEntry,
  statementTimeoutMs: number,
): { set: string; reset: string } | undefined {
  if (dialect === 'mariadb') return undefined;
  const milliseconds = Math.max(1, Math.round(statementTimeoutMs));
  return {
    set: `SET SESSION max_execution_time = ${milliseconds}, sql_select_limit = ${entry.max_rows + 1}`,
    reset: 'SET SESSION max_execution_time = DEFAULT, sql_select_limit = DEFAULT',
  };
}

async function detectDialect(connection: PoolConnection): Promise<MysqlDialect> {
  const [rows] = await connection.query({ sql: 'SELECT VERSION()', rowsAsArray: true });
  const version = String((rows as unknown[][])[0]?.[0] ?? '');
  return /mariadb/i.test(version) ? 'mariadb' : 'mysql';
}

function toCell(value: unknown): MysqlCell {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (Buffer.isBuffer(value)) return `<binary ${value.length} bytes>`;
  return JSON.stringify(value);
}

/** MariaDB reports some errors by number only (mysql2 has no name for 1969). */
const MYSQL_ERRNOS: Record<number, EvidenceErrorCode> = {
  1969: 'TIMEOUT', // MariaDB max_statement_time exceeded
  3024: 'TIMEOUT', // MySQL MAX_EXECUTION_TIME exceeded
  1317: 'TIMEOUT',
  1205: 'TIMEOUT',
  1792: 'ACCESS_DENIED', // write in a READ ONLY transaction
  1045: 'ACCESS_DENIED',
  1142: 'ACCESS_DENIED',
  1040: 'UNAVAILABLE',
  1203: 'THROTTLED',
};

const MYSQL_CODES: Record<string, EvidenceErrorCode> = {
  ER_STATEMENT_TIMEOUT: 'TIMEOUT',
  ER_QUERY_TIMEOUT: 'TIMEOUT',
  ER_QUERY_INTERRUPTED: 'TIMEOUT',
  ER_LOCK_WAIT_TIMEOUT: 'TIMEOUT',
  ER_ACCESS_DENIED_ERROR: 'ACCESS_DENIED',
  ER_DBACCESS_DENIED_ERROR: 'ACCESS_DENIED',
  ER_TABLEACCESS_DENIED_ERROR: 'ACCESS_DENIED',
  ER_COLUMNACCESS_DENIED_ERROR: 'ACCESS_DENIED',
  ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION: 'ACCESS_DENIED',
  ER_CON_COUNT_ERROR: 'UNAVAILABLE',
  ER_TOO_MANY_USER_CONNECTIONS: 'THROTTLED',
  ECONNREFUSED: 'UNAVAILABLE',
  ECONNRESET: 'UNAVAILABLE',
  ETIMEDOUT: 'UNAVAILABLE',
  ENOTFOUND: 'UNAVAILABLE',
  PROTOCOL_CONNECTION_LOST: 'UNAVAILABLE',
  ER_NO_SUCH_TABLE: 'INVALID_QUERY',
  ER_BAD_FIELD_ERROR: 'INVALID_QUERY',
  ER_PARSE_ERROR: 'INVALID_QUERY',
};

/** Maps a driver error to a stable code. The detail names the driver code only: driver messages can carry hosts. */
function mysqlError(error: unknown): AdapterResult<MysqlData> {
  const code = typeof (error as { code?: unknown })?.code === 'string' ? (error as { code: string }).code : 'UNKNOWN';
  const errno = (error as { errno?: unknown })?.errno;
  const safeCode = /^[A-Z0-9_]{1,64}$/.test(code) ? code : 'UNKNOWN';
  return {
    status: 'ERROR',
    code: MYSQL_CODES[safeCode] ?? (typeof errno === 'number' ? MYSQL_ERRNOS[errno] : undefined) ?? 'INTERNAL',
    detail: `mysql ${safeCode}${typeof errno === 'number' ? ` (${errno})` : ''}`,
  };
}

/** Resolves with the value, or with undefined as soon as the signal aborts. */
async function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) return undefined;
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<undefined>((resolve) => {
    onAbort = () => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([promise, aborted]);
  } finally {
    if (onAbort !== undefined) signal.removeEventListener('abort', onAbort);
  }
}
