import { describe, expect, it } from 'vitest';
import { deriveDraftSchemaTexts } from '../../../../packages/core/src/draft/derive-draft-schema.ts';
import {
  DIAGNOSIS_DRAFT_JSON_SCHEMA,
  DRAFT_ANSWER_JSON_SCHEMA,
  DRAFT_ANSWER_SCHEMA_NOTATION,
} from '../../../../packages/core/src/draft/diagnosis-draft-json-schema.ts';

// A stale file (the Draft's schema changed since it was generated) fails here: run `node scripts/generate-json-schemas.ts`.
describe('DIAGNOSIS_DRAFT_JSON_SCHEMA', () => {
  it('is the JSON Schema valibot converts the Draft schema to when generated from the current schema', () => {
    expect(DIAGNOSIS_DRAFT_JSON_SCHEMA).toStrictEqual(deriveDraftSchemaTexts().schema);
  });
});

describe('DRAFT_ANSWER_JSON_SCHEMA', () => {
  it('is the JSON Schema valibot converts the model’s Draft schema to when generated from the current schema', () => {
    expect(DRAFT_ANSWER_JSON_SCHEMA).toStrictEqual(deriveDraftSchemaTexts().answerSchema);
  });
});

describe('DRAFT_ANSWER_SCHEMA_NOTATION', () => {
  it('is the notation of the model’s converted schema when generated from the current schema', () => {
    expect(DRAFT_ANSWER_SCHEMA_NOTATION).toBe(deriveDraftSchemaTexts().answerNotation);
  });
});
