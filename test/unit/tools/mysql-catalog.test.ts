import { limitStatement, MysqlCatalogError, parseMysqlCatalog, toPositional } from '@diagnosis/core/adapters';
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
      'SELECT id, status FROM orders WHERE enterprise_id = ? AND created_at >= ? ORDER BY created_at DESC',
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
  it('uses the MAX_EXECUTION_TIME and SET_VAR hints on MySQL', () => {
    expect(parsed && limitStatement('mysql', parsed, 2_500)).toBe(
      'SELECT /*+ MAX_EXECUTION_TIME(2500) SET_VAR(sql_select_limit=21) */ id, status FROM orders WHERE enterprise_id = ? AND created_at >= ? ORDER BY created_at DESC',
    );
  });
});
