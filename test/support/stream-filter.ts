/**
 * Lambda's event filtering as the deployment's stream filters use it (docs.aws.amazon.com/lambda/latest/dg/
 * invocation-eventfiltering.html): a record is delivered when it matches any one filter; a filter matches when every
 * key it names is in the record and, where the filter gives a list, the record's value equals one of its entries
 * (nested objects match key by key). Only that subset (exact string values) is implemented: the one the filters of
 * deploy/*.ts are written in.
 */
function matches(pattern: unknown, value: unknown): boolean {
  if (Array.isArray(pattern)) return pattern.some((allowed) => allowed === value);
  if (pattern === null || typeof pattern !== 'object') return false;
  if (value === null || typeof value !== 'object') return false;
  return Object.entries(pattern).every(([key, inner]) => matches(inner, (value as Record<string, unknown>)[key]));
}

/** Whether Lambda would deliver `record` (a DynamoDB stream record as the function receives it) to the mapping. */
export function streamFilterDelivers(filters: readonly unknown[], record: unknown): boolean {
  return filters.some((filter) => matches(filter, record));
}
