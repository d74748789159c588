import { toJsonSchema } from '@valibot/to-json-schema';
import { diagnosisDraftSchema } from './diagnosis-draft.ts';
import { renderSchemaNotation } from './schema-notation.ts';

/**
 * The Draft's JSON Schema and its notation derived from the valibot schema: what `scripts/generate-json-schemas.ts`
 * writes into `diagnosis-draft-json-schema.ts` and its test compares with it. NOTE: no function imports this module,
 * so none converts a schema at cold start.
 */
export function deriveDraftSchemaTexts(): { schema: object; notation: string } {
  const schema = toJsonSchema(diagnosisDraftSchema);
  return { schema, notation: renderSchemaNotation(schema) };
}
