import { FEEDBACK_LIMITS, STATUS_WORDS, STOP_REASONS } from '@diagnosis/core';
import { describe, expect, it } from 'vitest';
import { diagnosisDraftJsonSchema } from '../../../packages/core/src/draft/diagnosis-draft.ts';
import { TOOL_NAMES } from '../../../packages/core/src/run/tool-name.ts';
import { loadSchema, schemaErrors } from '../../support/json-schemas.ts';

type FeedbackSchema = {
  maxItems: number;
  items: { properties: { rootCause: { maxLength: number }; note: { maxLength: number } } };
};

const defs = loadSchema('diagnosis-result').$defs as Record<string, { enum?: unknown[] }>;

describe('the committed JSON Schemas (docs/schemas)', () => {
  it('carry the Draft’s own generated schema and the code’s own lists, so they cannot drift', () => {
    const { $schema: _dialect, ...draft } = diagnosisDraftJsonSchema() as Record<string, unknown>;
    expect(defs.draft).toEqual(draft);
    expect(defs.stopReason?.enum).toEqual([...STOP_REASONS]);
    expect(defs.toolName?.enum).toEqual([...TOOL_NAMES]);
    const resource = loadSchema('run-resource') as { properties: { status: { enum: unknown[] } } };
    expect(resource.properties.status.enum).toEqual([...STATUS_WORDS]);
  });

  it("bound the run resource's feedback as the store does (every entry a run holds, the texts as stored, masked)", () => {
    const feedback = (loadSchema('run-resource') as { properties: { feedback: FeedbackSchema } }).properties.feedback;
    expect(feedback.maxItems).toBe(FEEDBACK_LIMITS.storedPerRun);
    expect(FEEDBACK_LIMITS.storedPerRun).toBe(FEEDBACK_LIMITS.entriesPerRun * FEEDBACK_LIMITS.ratingsPerCaller);
    expect(feedback.items.properties.rootCause.maxLength).toBe(FEEDBACK_LIMITS.maskedRootCauseChars);
    expect(feedback.items.properties.note.maxLength).toBe(FEEDBACK_LIMITS.maskedNoteChars);
  });

  it('refuse what the output never is: an unknown status, a missing field, an unknown key', () => {
    expect(schemaErrors('run-summaries', [{ runId: 'r', status: 'DONE' }]).length).toBeGreaterThan(0);
    const summary = {
      runId: 'r',
      status: 'PUBLISHED',
      stopReason: null,
      errorCode: null,
      totalTokens: 1,
      createdAt: '2026-12-01T00:00:00.000Z',
      enterpriseId: 'E1001',
      sessionId: 's',
      query: 'q',
    };
    expect(schemaErrors('run-summaries', [summary])).toEqual([]);
    expect(schemaErrors('run-summaries', [{ ...summary, secret: 'x' }])).toEqual([
      '/0 must NOT have additional properties',
    ]);
    expect(schemaErrors('run-summaries', [{ ...summary, createdAt: 'yesterday' }])).toEqual([
      '/0/createdAt must match format "date-time"',
    ]);
  });
});
