/**
 * The committed JSON Schemas of docs/schemas/ compiled with Ajv (draft 2020-12, formats checked), for tests that
 * validate real output against them: `--json` of diagnose/demo, `runs --json`, `diagnose --batch --json` and the API's
 * run resource, and `eval --json`.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

export const SCHEMA_DIR = resolve(import.meta.dirname, '../../docs/schemas');
export const SCHEMA_FILES = [
  'diagnosis-result',
  'run-summaries',
  'run-resource',
  'batch-report',
  'eval-report',
] as const;
export type SchemaName = (typeof SCHEMA_FILES)[number];

export function loadSchema(name: SchemaName): Record<string, unknown> {
  return JSON.parse(readFileSync(resolve(SCHEMA_DIR, `${name}.schema.json`), 'utf8'));
}

const ajv = new Ajv2020({ allErrors: true, strict: true });
(addFormats as unknown as (instance: Ajv2020) => void)(ajv);
for (const name of SCHEMA_FILES) ajv.addSchema(loadSchema(name));

/** The schema's errors for a value (empty: valid), as `path message` lines a failing test shows. */
export function schemaErrors(name: SchemaName, value: unknown): string[] {
  const validate = ajv.getSchema(`${name}.schema.json`);
  if (validate === undefined) throw new Error(`no schema ${name}`);
  return validate(value) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message}`);
}
