import {
  limitStatement,
  MysqlCatalogError,
  parseMysqlCatalog,
  sessionLimits,
  toPositional,
} from '@diagnosis/core/adapters';
import { describe, expect, it } from 'vitest';

const entry = (overrides: Record<string, unknown> = {}) => ({
  name: 'failed_orders',
  description: '失败订单',
  sql: 'SELECT id, status FROM orders WHERE enterprise_id = :enterprise_id AND created_at >= :since ORDER BY created_at DESC',
  params: { since: { type: 'datetime', description: '起始时间' } },
  max_rows: 20,
  ...overrides,
});

function faultsOf(catalog: unknown): readonly string[] {
  try {
    parseMysqlCatalog(catalog);
  } catch (error) {
    expect(error).toBeInstanceOf(MysqlCatalogError);
    return (error as MysqlCatalogError).faults;
  }
  throw new Error('the catalog was accepted');
}

describe('parseMysqlCatalog', () => {
  it('accepts a SELECT with the enterprise placeholder and turns named placeholders into positional ones', () => {
    const [parsed] = parseMysqlCatalog([entry()]);
    expect(parsed?.positionalSql).toBe(
      'SELECT id, status FROM orders WHERE enterprise_id = CAST(? AS BINARY) AND created_at >= ? ORDER BY created_at DESC',
    );
    expect(parsed?.placeholders).toEqual(['enterprise_id', 'since']);
  });

  it.each([
    [
      'an UPDATE',
      { sql: 'UPDATE orders SET status = 1 WHERE enterprise_id = :enterprise_id', params: {} },
      'must be a SELECT',
    ],
    ['a DELETE', { sql: 'DELETE FROM orders WHERE enterprise_id = :enterprise_id', params: {} }, 'must be a SELECT'],
    [
      'two statements',
      { sql: 'SELECT 1 FROM t WHERE e = :enterprise_id; DELETE FROM orders', params: {} },
      'exactly one statement',
    ],
    ['no enterprise placeholder', { sql: 'SELECT id FROM orders WHERE created_at >= :since' }, ':enterprise_id'],
    [
      'INTO OUTFILE',
      { sql: "SELECT * INTO OUTFILE '/tmp/x' FROM orders WHERE enterprise_id = :enterprise_id", params: {} },
      'INTO',
    ],
    ['FOR UPDATE', { sql: 'SELECT * FROM orders WHERE enterprise_id = :enterprise_id FOR UPDATE', params: {} }, 'lock'],
    [
      'an undeclared placeholder',
      { sql: 'SELECT * FROM orders WHERE enterprise_id = :enterprise_id AND id = :id', params: {} },
      ':id is not declared',
    ],
    ['an unused parameter', { sql: 'SELECT * FROM orders WHERE enterprise_id = :enterprise_id' }, 'since is not used'],
    [
      'a positional placeholder',
      { sql: 'SELECT * FROM orders WHERE enterprise_id = :enterprise_id AND id = ?', params: {} },
      'named placeholders',
    ],
    [
      'enterprise_id as a parameter',
      {
        params: { since: { type: 'datetime', description: 'd' }, enterprise_id: { type: 'string', description: 'e' } },
      },
      'bound by the run',
    ],
    [
      'SQL that does not parse',
      { sql: 'SELEKT * FROM orders WHERE enterprise_id = :enterprise_id', params: {} },
      'does not parse',
    ],
  ])('refuses the whole catalog for %s', (_label, overrides, fault) => {
    const faults = faultsOf([entry({ name: 'good' }), entry(overrides)]);
    expect(faults.join('\n')).toContain(fault);
  });

  it.each([
    ['max_rows over 50', { max_rows: 51 }],
    ['an unknown key', { timeout: 5 }],
    ['an unknown parameter type', { params: { since: { type: 'date', description: 'd' } } }],
    ['a name that is not snake_case', { name: 'Failed Orders' }],
  ])('refuses a catalog entry with %s', (_label, overrides) => {
    expect(faultsOf([entry(overrides)]).length).toBeGreaterThan(0);
  });

  it('refuses duplicate names and an empty catalog', () => {
    expect(faultsOf([entry(), entry()])).toContain('failed_orders: duplicate name');
    expect(faultsOf([]).length).toBeGreaterThan(0);
  });
});

describe('toPositional', () => {
  it('leaves placeholders inside quotes and casts alone', () => {
    expect(toPositional("SELECT ':not_me', `:nor_me`, x::text FROM t WHERE a = :a AND b = ':b' AND c = :c")).toEqual({
      sql: "SELECT ':not_me', `:nor_me`, x::text FROM t WHERE a = ? AND b = ':b' AND c = ?",
      names: ['a', 'c'],
    });
  });
});

describe('limitStatement', () => {
  const [parsed] = parseMysqlCatalog([entry()]);
  it('uses SET STATEMENT max_statement_time and sql_select_limit on MariaDB', () => {
    expect(parsed && limitStatement('mariadb', parsed, 2_500)).toBe(
      `SET STATEMENT max_statement_time=2.5, sql_select_limit=21 FOR ${parsed?.positionalSql}`,
    );
  });
  it('sets max_execution_time and sql_select_limit on the session on MySQL, leaving the SQL as it is', () => {
    expect(parsed && limitStatement('mysql', parsed, 2_500)).toBe(parsed?.positionalSql);
    expect(parsed && sessionLimits('mysql', parsed, 2_500)).toEqual({
      set: 'SET SESSION max_execution_time = 2500, sql_select_limit = 21',
      reset: 'SET SESSION max_execution_time = DEFAULT, sql_select_limit = DEFAULT',
    });
    expect(parsed && sessionLimits('mariadb', parsed, 2_500)).toBeUndefined();
  });

  it.each([
    ['WITH', 'WITH r AS (SELECT id FROM orders WHERE enterprise_id = :enterprise_id) SELECT id FROM r'],
    ['parentheses', '(SELECT id FROM orders WHERE enterprise_id = :enterprise_id)'],
    ['a leading comment', '/* c */ SELECT id FROM orders WHERE enterprise_id = :enterprise_id'],
  ])('limits a statement starting with %s on both dialects', (_label, sql) => {
    const [shaped] = parseMysqlCatalog([entry({ sql, params: {} })]);
    if (shaped === undefined) throw new Error('not parsed');
    expect(limitStatement('mariadb', shaped, 1_000)).toBe(
      `SET STATEMENT max_statement_time=1, sql_select_limit=21 FOR ${shaped.positionalSql}`,
    );
    expect(sessionLimits('mysql', shaped, 1_000)?.set).toBe(
      'SET SESSION max_execution_time = 1000, sql_select_limit = 21',
    );
  });
});

describe('parseMysqlCatalog tenant filter', () => {
  const tenantEntry = (sql: string, overrides: Record<string, unknown> = {}) =>
    entry({ name: 'tenant_probe', sql, params: {}, ...overrides });

  it.each([
    ['a -- comment', 'SELECT id FROM orders WHERE 1=1 -- AND enterprise_id = :enterprise_id'],
    ['a # comment', 'SELECT id FROM orders WHERE 1=1 # AND enterprise_id = :enterprise_id'],
    ['a /* */ comment', 'SELECT id FROM orders WHERE 1=1 /* AND enterprise_id = :enterprise_id */'],
    ['a comment before a newline', 'SELECT id FROM orders -- enterprise_id = :enterprise_id\nWHERE 1=1'],
  ])('refuses a tenant filter that is only inside %s', (_label, sql) => {
    expect(faultsOf([tenantEntry(sql)]).join('\n')).toContain('tenant_probe: sql must filter on :enterprise_id');
  });

  it.each([
    ['under OR', 'SELECT id FROM orders WHERE enterprise_id = :enterprise_id OR 1=1'],
    ['under NOT', 'SELECT id FROM orders WHERE NOT (enterprise_id = :enterprise_id)'],
    ['not compared with a column', 'SELECT id FROM orders WHERE :enterprise_id IS NOT NULL'],
    ['compared with another operator', 'SELECT id FROM orders WHERE enterprise_id >= :enterprise_id'],
    ['only in the select list', 'SELECT id, :enterprise_id AS e FROM orders WHERE enterprise_id = :enterprise_id'],
    ['only in a join condition', 'SELECT o.id FROM orders o JOIN c ON c.enterprise_id = :enterprise_id'],
    [
      'missing on a joined table',
      'SELECT o.id, c.name FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.enterprise_id = :enterprise_id',
    ],
    [
      'missing in a subquery',
      'SELECT id FROM orders WHERE enterprise_id = :enterprise_id AND customer_id IN (SELECT id FROM customers)',
    ],
    [
      'missing in one member of a union',
      'SELECT id FROM orders WHERE enterprise_id = :enterprise_id UNION SELECT id FROM refunds',
    ],
    [
      'missing in a CTE',
      'WITH c AS (SELECT id FROM customers) SELECT o.id FROM orders o, c WHERE o.enterprise_id = :enterprise_id',
    ],
    ['unqualified with two tables', 'SELECT o.id FROM orders o, refunds r WHERE enterprise_id = :enterprise_id'],
  ])('refuses a tenant placeholder %s', (_label, sql) => {
    expect(faultsOf([tenantEntry(sql)]).some((fault) => fault.startsWith('tenant_probe: '))).toBe(true);
  });

  it.each([
    ['a qualified column', 'SELECT o.id FROM orders AS o WHERE o.enterprise_id = :enterprise_id AND o.id > 0'],
    ['the placeholder on the left', 'SELECT id FROM orders WHERE (:enterprise_id = enterprise_id) AND id > 0'],
    [
      'a join filtered on both tables',
      'SELECT o.id, c.name FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.enterprise_id = :enterprise_id AND c.enterprise_id = :enterprise_id',
    ],
    [
      'a filtered CTE',
      'WITH recent AS (SELECT id FROM orders WHERE enterprise_id = :enterprise_id) SELECT id FROM recent ORDER BY id',
    ],
    [
      'a filtered union in parentheses',
      '(SELECT id FROM orders WHERE enterprise_id = :enterprise_id) UNION ALL (SELECT id FROM refunds WHERE enterprise_id = :enterprise_id)',
    ],
    ['a filtered derived table', 'SELECT d.id FROM (SELECT id FROM orders WHERE enterprise_id = :enterprise_id) AS d'],
    [
      'leading comments',
      '/* failed orders */ -- newest first\nSELECT id FROM orders WHERE enterprise_id = :enterprise_id',
    ],
    ['comment markers inside text', "SELECT '-- x', '/*! y */', `#z` FROM orders WHERE enterprise_id = :enterprise_id"],
  ])('accepts %s', (_label, sql) => {
    expect(parseMysqlCatalog([tenantEntry(sql)])).toHaveLength(1);
  });

  it('runs the SQL with its comments removed and quoted text kept', () => {
    const [parsed] = parseMysqlCatalog([
      tenantEntry("/* lead */ SELECT id, '-- kept' FROM orders -- tail\nWHERE enterprise_id = :enterprise_id # end"),
    ]);
    expect(parsed?.positionalSql).toMatch(
      /^SELECT id, '-- kept' FROM orders\s+WHERE enterprise_id = CAST\(\? AS BINARY\)$/,
    );
  });
});

describe('parseMysqlCatalog executable comments', () => {
  it.each([
    ['/*! */', 'SELECT id FROM orders WHERE enterprise_id = :enterprise_id /*! UNION SELECT id FROM refunds */'],
    ['/*! INTO */', 'SELECT id FROM orders WHERE enterprise_id = :enterprise_id /*! INTO @v */'],
    ['/*!50000 */', "SELECT id FROM orders WHERE enterprise_id = :enterprise_id /*!50000 INTO OUTFILE '/tmp/x' */"],
    ['/*M! */', 'SELECT id FROM orders WHERE enterprise_id = :enterprise_id /*M! UNION SELECT id FROM refunds */'],
    ['/*M!100000 */', 'SELECT id FROM orders WHERE enterprise_id = :enterprise_id /*M!100000 OR 1=1 */'],
    [
      'an optimizer hint',
      'SELECT /*+ MAX_EXECUTION_TIME(100000) */ id FROM orders WHERE enterprise_id = :enterprise_id',
    ],
  ])('refuses %s, naming the entry', (_label, sql) => {
    const faults = faultsOf([entry({ name: 'good' }), entry({ name: 'sneaky', sql, params: {} })]);
    expect(faults).toContain('sneaky: sql must not contain executable comments or optimizer hints');
  });

  it.each([
    ['an unterminated comment', 'SELECT id FROM orders WHERE enterprise_id = :enterprise_id /* open'],
    ['an unterminated string', "SELECT id FROM orders WHERE enterprise_id = :enterprise_id AND s = 'open"],
    ['a backslash', "SELECT id FROM orders WHERE enterprise_id = :enterprise_id AND s = 'a\\' -- '"],
    ['a stray comment end', 'SELECT id FROM orders WHERE enterprise_id = :enterprise_id */'],
    ['a double dash that is not a comment', 'SELECT id--1 FROM orders WHERE enterprise_id = :enterprise_id'],
  ])('refuses %s: the server could read it differently', (_label, sql) => {
    expect(faultsOf([entry({ name: 'odd', sql, params: {} })]).some((fault) => fault.startsWith('odd: '))).toBe(true);
  });
});

describe('parseMysqlCatalog row cap', () => {
  it.each([
    ['above max_rows', 'SELECT id FROM orders WHERE enterprise_id = :enterprise_id LIMIT 21'],
    ['with an offset, above max_rows', 'SELECT id FROM orders WHERE enterprise_id = :enterprise_id LIMIT 5, 100'],
    [
      'on a union, above max_rows',
      'SELECT id FROM orders WHERE enterprise_id = :enterprise_id UNION SELECT id FROM refunds WHERE enterprise_id = :enterprise_id LIMIT 100',
    ],
  ])('refuses a top-level LIMIT %s: it would override the server-side row cap', (_label, sql) => {
    expect(faultsOf([entry({ name: 'wide', sql, params: {} })])).toContain(
      'wide: a top-level LIMIT must be a number no greater than max_rows',
    );
  });

  it('refuses a placeholder as the top-level LIMIT', () => {
    const sql = 'SELECT id FROM orders WHERE enterprise_id = :enterprise_id LIMIT :n';
    expect(
      faultsOf([entry({ name: 'wide', sql, params: { n: { type: 'integer', description: 'n', min: 1, max: 5 } } })]),
    ).toContain('wide: a top-level LIMIT must be a number no greater than max_rows');
  });

  it('accepts a top-level LIMIT within max_rows', () => {
    const sql = 'SELECT id FROM orders WHERE enterprise_id = :enterprise_id ORDER BY id DESC LIMIT 20';
    expect(parseMysqlCatalog([entry({ sql, params: {} })])).toHaveLength(1);
  });
});
