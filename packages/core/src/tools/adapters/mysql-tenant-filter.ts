/**
 * The catalog's tenant rule, read on node-sql-parser's AST of the comment-free SQL.
 *
 * NOTE: the rule. Every SELECT block anywhere in the statement (the main query, each UNION member, each CTE, each
 * derived table and subquery) must, for every base table in its FROM list (CTE names and derived tables are checked
 * where they are defined), have a conjunct `<column of that table> = :enterprise_id` (either side) in its WHERE,
 * joined to the rest by AND only, never under OR, NOT or a function. A column counts for a table when qualified with
 * its alias or name, or unqualified when the FROM list has exactly one item. `:enterprise_id` may appear nowhere
 * else (not in the select list, ON, HAVING or `IS NOT NULL`), and must appear at least once. Joined tables are
 * filtered in WHERE, not in ON: an ON condition does not filter the preserved side of an outer join.
 */

type AstNode = Record<string, unknown>;

const isNode = (value: unknown): value is AstNode => typeof value === 'object' && value !== null;

const MISSING_TENANT_FILTER_FAULT = 'sql must filter on :enterprise_id';

/** Faults of the tenant rule; `textCount` is how many `:enterprise_id` placeholders the SQL text holds. */
export function tenantFilterFaults(ast: unknown, placeholder: string, textCount: number): string[] {
  const { selects, params, cteNames } = collect(ast, placeholder);
  const faults: string[] = [];
  let filters = 0;
  for (const select of selects) {
    const from = Array.isArray(select.from) ? select.from : [];
    const columns = andConjuncts(select.where)
      .map((conjunct) => tenantColumn(conjunct, placeholder))
      .filter((column) => column !== undefined);
    filters += columns.length;
    for (const item of from) {
      if (!isNode(item) || typeof item.table !== 'string') continue;
      if (item.db == null && cteNames.has(item.table.toLowerCase())) continue;
      const name = (typeof item.as === 'string' ? item.as : item.table).toLowerCase();
      const covered = columns.some((column) =>
        column.table === undefined ? from.length === 1 : column.table === name,
      );
      if (!covered) faults.push(`table ${item.table} must be filtered by <column> = :${placeholder} in its WHERE`);
    }
  }
  if (textCount === 0 || filters === 0) return [MISSING_TENANT_FILTER_FAULT, ...faults];
  if (params !== textCount || filters !== textCount) {
    faults.push(`:${placeholder} may only appear as <column> = :${placeholder} joined by AND in a WHERE`);
  }
  return faults;
}

function collect(ast: unknown, placeholder: string) {
  const selects: AstNode[] = [];
  const cteNames = new Set<string>();
  const seen = new Set<unknown>();
  let params = 0;
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) walk(item);
      return;
    }
    if (!isNode(value) || seen.has(value)) return;
    seen.add(value);
    if (value.type === 'select') selects.push(value);
    if (value.type === 'param' && value.value === placeholder) params += 1;
    if (Array.isArray(value.with)) {
      for (const cte of value.with) {
        const name = isNode(cte) && isNode(cte.name) ? cte.name.value : isNode(cte) ? cte.name : undefined;
        if (typeof name === 'string') cteNames.add(name.toLowerCase());
      }
    }
    for (const child of Object.values(value)) walk(child);
  };
  walk(ast);
  return { selects, params, cteNames };
}

function andConjuncts(expression: unknown): unknown[] {
  if (isNode(expression) && expression.type === 'binary_expr') {
    const operator = String(expression.operator).toUpperCase();
    if (operator === 'AND' || operator === '&&') {
      return [...andConjuncts(expression.left), ...andConjuncts(expression.right)];
    }
  }
  return [expression];
}

/** The column of a `<column> = :enterprise_id` conjunct (its table lower-cased), or undefined. */
function tenantColumn(expression: unknown, placeholder: string): { table: string | undefined } | undefined {
  if (!isNode(expression) || expression.type !== 'binary_expr' || expression.operator !== '=') return undefined;
  const isTenant = (side: unknown) => isNode(side) && side.type === 'param' && side.value === placeholder;
  const column = isTenant(expression.right) ? expression.left : isTenant(expression.left) ? expression.right : null;
  if (!isNode(column) || column.type !== 'column_ref') return undefined;
  return { table: typeof column.table === 'string' ? column.table.toLowerCase() : undefined };
}
