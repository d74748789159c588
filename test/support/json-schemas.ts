/**
 * The committed JSON Schemas of docs/schemas/ compiled with Ajv (draft 2020-12, formats checked), for tests that
 * validate real output against them: `--json` of diagnose/demo, `runs --json`, `diagnose --batch --json` and the API's
 * run resource, `eval --json`, `feedback --json`, `reveal --json`, `trigger --json` (and `demo --alarm --json`),
 * `eval compare --json`, and `eval cloud-opsbench --json` with its comparison.
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
  'run-feedback',
  'reveal-entries',
  'trigger-report',
  'eval-comparison',
  'cloud-opsbench-report',
  'cloud-opsbench-comparison',
] as const;
export type SchemaName = (typeof SCHEMA_FILES)[number];

export function loadSchema(name: SchemaName): Record<string, unknown> {
  return JSON.parse(readFileSync(resolve(SCHEMA_DIR, `${name}.schema.json`), 'utf8'));
}

const ajv = new Ajv2020({ allErrors: true, strict: true });
(addFormats as unknown as (instance: Ajv2020) => void)(ajv);
for (const name of SCHEMA_FILES) ajv.addSchema(loadSchema(name));

/**
 * The schema's errors for a value (empty: valid), as `path message` lines a failing test shows. `definition` (a JSON
 * pointer such as `/$defs/delivery`) validates against that part of the schema instead of the whole.
 */
export function schemaErrors(name: SchemaName, value: unknown, definition = ''): string[] {
  const validate = ajv.getSchema(`${name}.schema.json${definition === '' ? '' : `#${definition}`}`);
  if (validate === undefined) throw new Error(`no schema ${name}${definition}`);
  return validate(value) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message}`);
}
