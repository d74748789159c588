import * as v from 'valibot';
import { triggerMappingsSchema } from './trigger-mappings.ts';

/**
 * The fields at fault in a stage file's `triggers`, by their path as the file writes them (`[2].labels`,
 * `[0].alarmNamePattern`), at most five; empty when the mappings are valid. NOTE: paths only, never a value or the
 * schema's message (which may quote the value).
 */
export function findTriggerMappingFaults(value: unknown): string[] {
  const result = v.safeParse(triggerMappingsSchema, value);
  if (result.success) return [];
  const paths = result.issues.map((issue) =>
    (issue.path ?? [])
      .map((item) => (typeof item.key === 'number' ? `[${item.key}]` : `.${String(item.key)}`))
      .join(''),
  );
  return [...new Set(paths)].slice(0, 5);
}
