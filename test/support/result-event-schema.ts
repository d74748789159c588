/** The committed JSON Schema of `Diagnosis Run Finished` v1, compiled with ajv (draft 2020-12, formats checked). */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

export const RESULT_EVENT_SCHEMA_PATH = 'docs/schemas/diagnosis-run-finished.v1.json';

export function loadResultEventSchema(): Record<string, unknown> {
  return JSON.parse(readFileSync(RESULT_EVENT_SCHEMA_PATH, 'utf8')) as Record<string, unknown>;
}

/** A validator of whole events (EventBridge's envelope and the detail); `errors` names what failed. */
export function resultEventValidator() {
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  addFormats.default(ajv);
  return ajv.compile(loadResultEventSchema());
}
