import { toJsonSchema } from '@valibot/to-json-schema';
import { diagnosisDraftSchema, draftAnswerSchema } from './diagnosis-draft.ts';
import { renderSchemaNotation } from './schema-notation.ts';

/**
 * The Draft's JSON Schemas derived from the valibot schemas — the report's, the model's and the model's in the
 * notation its instructions quote: what `scripts/generate-json-schemas.ts` writes into
 * `diagnosis-draft-json-schema.ts` and its test compares with it. NOTE: no function imports this module, so none
 * converts a schema at cold start.
 */
export function deriveDraftSchemaTexts(): { schema: object; answerSchema: object; answerNotation: string } {
  const answerSchema = toJsonSchema(draftAnswerSchema);
  return {
    schema: toJsonSchema(diagnosisDraftSchema),
    answerSchema,
    answerNotation: renderSchemaNotation(answerSchema),
  };
}
