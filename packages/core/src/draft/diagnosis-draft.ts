import * as v from 'valibot';
import { DIAGNOSIS_DRAFT_JSON_SCHEMA } from './diagnosis-draft-json-schema.ts';

const text = (max: number) => v.pipe(v.string(), v.minLength(1), v.maxLength(max));

const analysisItemSchema = v.strictObject({
  type: v.picklist(['FINDING', 'HYPOTHESIS', 'NEGATIVE_OBSERVATION']),
  statement: text(1_000),
  evidence_status: v.picklist(['SUPPORTED', 'NO_EVIDENCE']),
  tool_call_ids: v.pipe(v.array(v.pipe(v.string(), v.minLength(1), v.maxLength(200))), v.minLength(1), v.maxLength(6)),
  scope: v.nullable(v.pipe(v.string(), v.maxLength(300))),
});

/**
 * The structure of a DiagnosisDraft (strict objects: unknown keys are rejected). The cross-field rules live in
 * {@link draftRuleViolations}, so that this schema converts to the JSON Schema the model is given.
 */
export const diagnosisDraftSchema = v.strictObject({
  conclusion: v.nullable(text(1_000)),
  analysis: v.pipe(v.array(analysisItemSchema), v.maxLength(10)),
  action_plan: v.pipe(v.array(v.strictObject({ step: text(300), purpose: text(300) })), v.maxLength(8)),
  recommendations: v.pipe(v.array(text(300)), v.maxLength(8)),
  limitations: v.strictObject({
    checked_scope: v.pipe(v.array(text(300)), v.maxLength(10)),
    missing_info: v.pipe(v.array(text(300)), v.maxLength(10)),
  }),
});

export type DiagnosisDraft = v.InferOutput<typeof diagnosisDraftSchema>;
export type AnalysisItem = DiagnosisDraft['analysis'][number];

/**
 * The rules of the Draft that a JSON Schema cannot say: NO_EVIDENCE only on a scoped NEGATIVE_OBSERVATION; a
 * conclusion needs a SUPPORTED FINDING; no conclusion needs the missing information named.
 */
export function draftRuleViolations(draft: DiagnosisDraft): string[] {
  const violations: string[] = [];
  draft.analysis.forEach((item, index) => {
    if (item.evidence_status === 'NO_EVIDENCE' && item.type !== 'NEGATIVE_OBSERVATION') {
      violations.push(`analysis.${index}.evidence_status`);
    }
    if (item.evidence_status === 'NO_EVIDENCE' && (item.scope === null || item.scope.trim().length === 0)) {
      violations.push(`analysis.${index}.scope`);
    }
  });
  const hasSupportedFinding = draft.analysis.some(
    (item) => item.type === 'FINDING' && item.evidence_status === 'SUPPORTED',
  );
  if (draft.conclusion !== null && !hasSupportedFinding) violations.push('conclusion');
  if (draft.conclusion === null && draft.limitations.missing_info.length === 0) {
    violations.push('limitations.missing_info');
  }
  return violations;
}

/**
 * The JSON Schema of the DiagnosisDraft, as given to the model in the prompt (a fresh copy on every call). NOTE: it is
 * `toJsonSchema(diagnosisDraftSchema)` generated at build time (`node scripts/generate-draft-schema.ts`; a test
 * derives it again), so no function converts the schema at cold start.
 */
export function diagnosisDraftJsonSchema(): object {
  return structuredClone(DIAGNOSIS_DRAFT_JSON_SCHEMA);
}
