/**
 * A stable text form of a tool's business input (object keys sorted at every depth), so that two calls that ask the
 * same thing compare equal however the model ordered the fields.
 */
export function canonicalInput(toolName: string, input: unknown): string {
  return `${toolName}:${canonicalJson(input)}`;
}

/** The JSON text of a value with object keys sorted at every depth (`undefined` as `null`). */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? 'null';
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) sorted[key] = sortKeys((value as Record<string, unknown>)[key]);
  return sorted;
}
