import * as v from 'valibot';
import { DIAGNOSIS_DRAFT_JSON_SCHEMA, DRAFT_ANSWER_JSON_SCHEMA } from './diagnosis-draft-json-schema.ts';

const text = (max: number) => v.pipe(v.string(), v.minLength(1), v.maxLength(max));
const toolCallIdText = v.pipe(v.string(), v.minLength(1), v.maxLength(200));
const citations = <T extends v.GenericSchema>(item: T) => v.pipe(v.array(item), v.minLength(1), v.maxLength(6));

/** An analysis item with its citations under `key`: the model's `refs` or the report's `tool_call_ids`. */
const analysisItem = <K extends string, C extends v.GenericSchema>(key: K, cited: C) =>
  v.strictObject({
    type: v.picklist(['FINDING', 'HYPOTHESIS', 'NEGATIVE_OBSERVATION']),
    statement: text(1_000),
    evidence_status: v.picklist(['SUPPORTED', 'NO_EVIDENCE']),
    ...({ [key]: cited } as { [P in K]: C }),
    scope: v.nullable(v.pipe(v.string(), v.maxLength(300))),
  });

/** A Draft whose analysis items are `item`: the fields every form shares. */
const draftOf = <I extends v.GenericSchema>(item: I) =>
  v.strictObject({
    conclusion: v.nullable(text(1_000)),
    analysis: v.pipe(v.array(item), v.maxLength(10)),
    action_plan: v.pipe(v.array(v.strictObject({ step: text(300), purpose: text(300) })), v.maxLength(8)),
    recommendations: v.pipe(v.array(text(300)), v.maxLength(8)),
    limitations: v.strictObject({
      checked_scope: v.pipe(v.array(text(300)), v.maxLength(10)),
      missing_info: v.pipe(v.array(text(300)), v.maxLength(10)),
    }),
  });

/**
 * The structure of a DiagnosisDraft as the run keeps, guards, stores and reports it (strict objects: unknown keys are
 * rejected): each analysis item cites the run's checks by their `tool_call_ids`. The cross-field rules live in
 * {@link draftRuleViolations}.
 */
export const diagnosisDraftSchema = draftOf(analysisItem('tool_call_ids', citations(toolCallIdText)));

/**
 * The Draft as the model writes it, and the JSON Schema it is given: the same fields, except that an analysis item
 * cites a tool call by its `ref`, the number the harness showed with its observation (1 for the run's first call), an
 * integer of a token or two where the provider's `tool_call_id` is about 30 (a past incident by its own id, and any
 * other string as the id it is). NOTE: any integer passes here; `parseDiagnosisDraft` maps it to this run's call or
 * to a reference no check has, which the EvidenceGuard refuses as an unknown citation.
 */
export const draftAnswerSchema = draftOf(
  analysisItem('refs', citations(v.union([v.pipe(v.number(), v.integer()), toolCallIdText]))),
);

/** The Draft as the model writes it (see {@link draftAnswerSchema}). */
export type DraftAnswer = v.InferOutput<typeof draftAnswerSchema>;

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
 * The JSON Schema of the DiagnosisDraft as the report carries it (a fresh copy on every call). NOTE: it is
 * `toJsonSchema(diagnosisDraftSchema)` generated at build time (`node scripts/generate-json-schemas.ts`; a test
 * derives it again), so no function converts the schema at cold start.
 */
export function diagnosisDraftJsonSchema(): object {
  return structuredClone(DIAGNOSIS_DRAFT_JSON_SCHEMA);
}

/**
 * The JSON Schema of the Draft as the model writes it ({@link draftAnswerSchema}), what a provider with structured
 * outputs is given (a fresh copy on every call; generated at build time like {@link diagnosisDraftJsonSchema}).
 */
export function draftAnswerJsonSchema(): object {
  return structuredClone(DRAFT_ANSWER_JSON_SCHEMA);
}
