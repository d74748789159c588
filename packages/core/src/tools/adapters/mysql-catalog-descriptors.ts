import { readFileSync } from 'node:fs';
import * as v from 'valibot';
import type { MysqlQueryDescriptor } from '../evidence-adapter.ts';

const paramSchema = v.strictObject({
  type: v.picklist(['string', 'integer', 'datetime']),
  description: v.pipe(v.string(), v.minLength(1), v.maxLength(300)),
  max_length: v.exactOptional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(1_000))),
  min: v.exactOptional(v.pipe(v.number(), v.safeInteger())),
  max: v.exactOptional(v.pipe(v.number(), v.safeInteger())),
});

const entrySchema = v.strictObject({
  name: v.pipe(v.string(), v.regex(/^[a-z][a-z0-9_]{0,63}$/, 'snake_case name')),
  description: v.pipe(v.string(), v.minLength(1), v.maxLength(300)),
  sql: v.pipe(v.string(), v.minLength(1), v.maxLength(10_000)),
  params: v.record(v.pipe(v.string(), v.regex(/^[a-z][a-z0-9_]{0,63}$/)), paramSchema),
  max_rows: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(50)),
});

const catalogSchema = v.pipe(v.array(entrySchema), v.minLength(1), v.maxLength(100));

/** The catalog was refused as a whole; `faults` names every problem found. */
export class MysqlCatalogError extends Error {
  override readonly name = 'MysqlCatalogError';
  readonly faults: readonly string[];

  constructor(faults: string[]) {
    super(`the MySQL query catalog is invalid: ${faults.join('; ')}`);
    this.faults = faults;
  }
}

/**
 * The catalog file's JSON. NOTE: read synchronously: it is read once, at cold start, when nothing else runs; Node's
 * promise-based file reading costs about 2 M instructions more the first time a process uses it (BENCHMARKS.md at
 * bc6a21c).
 */
export async function readCatalogJson(path: string): Promise<unknown> {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    throw new MysqlCatalogError(['the catalog file is missing or not JSON']);
  }
}

/** The catalog's structure (valibot): names, descriptions, parameters, row limits. Its SQL is checked separately. */
export function parseCatalogShape(json: unknown) {
  const parsed = v.safeParse(catalogSchema, json);
  if (!parsed.success) {
    throw new MysqlCatalogError(
      parsed.issues
        .slice(0, 10)
        .map((issue) => `${(issue.path ?? []).map((item) => String(item.key)).join('.') || '$'}: ${issue.message}`),
    );
  }
  return parsed.output;
}

/**
 * What the model is told about a catalog, read without parsing its SQL (no database, nothing to run). The SQL is
 * validated by `loadMysqlCatalog` wherever the catalog is used against a database.
 */
export async function readMysqlCatalogDescriptors(path: string): Promise<readonly MysqlQueryDescriptor[]> {
  return parseCatalogShape(await readCatalogJson(path)).map((entry) => ({
    name: entry.name,
    description: entry.description,
    params: entry.params,
  }));
}
