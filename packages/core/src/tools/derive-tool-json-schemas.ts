import { toJsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import type { ToolName } from './evidence-adapter.ts';
import { envelope, knowledgeInputSchema, logsFields } from './tool-inputs.ts';

/**
 * The JSON Schema of each tool's envelope for a catalog of these query names, converted from the valibot schemas:
 * what `scripts/generate-json-schemas.ts` writes into `tool-json-schemas.ts` (without names) and what
 * `buildToolJsonSchemas` must equal (a test compares them). NOTE: no function imports this module, so none converts a
 * schema at cold start or in a run.
 */
export function deriveToolJsonSchemas(names: readonly string[]): Record<ToolName, object> {
  const mysqlBusiness = v.strictObject({
    query_name: names.length > 0 ? v.picklist(names) : v.string(),
    params: v.pipe(
      v.record(v.string(), v.union([v.string(), v.number()])),
      v.description('目录条目声明的全部参数；datetime 为带时区偏移的 ISO 8601'),
    ),
  });
  const options = { errorMode: 'ignore' } as const;
  return {
    lookup_knowledge: toJsonSchema(envelope(knowledgeInputSchema), options),
    query_logs: toJsonSchema(envelope(v.strictObject(logsFields)), options),
    query_mysql: toJsonSchema(envelope(mysqlBusiness), options),
  };
}
