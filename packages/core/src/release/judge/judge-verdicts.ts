import { toJsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import type { DiagnosisDraft } from '../../draft/diagnosis-draft.ts';

/** What the judge may say of one claim. */
export const VERDICTS = Object.freeze(['SUPPORTED', 'UNSUPPORTED', 'UNCLEAR'] as const);
export type Verdict = (typeof VERDICTS)[number];

/** The longest reason the judge may give for one verdict, in characters (one line). */
export const MAX_VERDICT_REASON_CHARS = 200;

const verdictSchema = v.picklist(VERDICTS);
const reasonSchema = v.pipe(
  v.string(),
  v.minLength(1),
  v.maxLength(MAX_VERDICT_REASON_CHARS),
  v.regex(/^[^\r\n]+$/, 'one line'),
);

/** Verdicts on a list of the Draft's claims, each by its 0-based index (at most `max` items). */
const indexedVerdicts = (max: number) =>
  v.pipe(
    v.array(
      v.strictObject({
        index: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(max - 1)),
        verdict: verdictSchema,
        reason: reasonSchema,
      }),
    ),
    v.maxLength(max),
  );

/**
 * The judge's output: one verdict per analysis item of the Draft (by its 0-based index), one for the conclusion
 * (null when the Draft has none), and one per recommendation and per action-plan step (each list may be left out
 * only when the Draft has none of its kind). Strict objects: unknown keys are refused.
 */
export const judgeVerdictsSchema = v.strictObject({
  analysis: indexedVerdicts(10),
  conclusion: v.nullable(v.strictObject({ verdict: verdictSchema, reason: reasonSchema })),
  recommendations: v.optional(indexedVerdicts(8)),
  action_plan: v.optional(indexedVerdicts(8)),
});

/** One verdict on a claim of a list (an analysis item, a recommendation, an action-plan step). */
export type IndexedVerdict = { index: number; verdict: Verdict; reason: string };

/** The judge's verdicts on a Draft, every list present and in the Draft's order. */
export interface JudgeVerdicts {
  analysis: IndexedVerdict[];
  conclusion: { verdict: Verdict; reason: string } | null;
  recommendations: IndexedVerdict[];
  action_plan: IndexedVerdict[];
}

/**
 * The JSON Schema of the judge's output (converted on every call). NOTE: the judge's instructions state it in prose
 * and one example, which cost fewer tokens than its notation; `parseJudgeVerdicts` enforces it either way. No
 * function sends it, so nothing converts it at cold start.
 */
export function judgeVerdictsJsonSchema(): object {
  return toJsonSchema(judgeVerdictsSchema);
}

/**
 * Strictly parses the judge's final text as its verdicts on `draft`, like the Draft itself: `JSON.parse` of the text
 * as it is (no fence, no prefix, no repair), the schema, then the cross-checks a schema cannot say: exactly one
 * verdict per analysis item, per recommendation and per action-plan step (every index from 0 to n-1 once, in each
 * list) and a conclusion verdict exactly when the Draft has a conclusion. Anything else is garbage, and the guard
 * fails closed on it.
 */
export function parseJudgeVerdicts(
  text: string,
  draft: DiagnosisDraft,
): { ok: true; verdicts: JudgeVerdicts } | { ok: false } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false };
  }
  const result = v.safeParse(judgeVerdictsSchema, value);
  if (!result.success) return { ok: false };
  const output = result.output;
  const analysis = eachOnce(output.analysis, draft.analysis.length);
  const recommendations = eachOnce(output.recommendations ?? [], draft.recommendations.length);
  const actionPlan = eachOnce(output.action_plan ?? [], draft.action_plan.length);
  if (analysis === null || recommendations === null || actionPlan === null) return { ok: false };
  if ((output.conclusion === null) !== (draft.conclusion === null)) return { ok: false };
  return {
    ok: true,
    verdicts: { analysis, conclusion: output.conclusion, recommendations, action_plan: actionPlan },
  };
}

/** `verdicts` in index order when they name every index from 0 to `count` - 1 exactly once; null otherwise. */
function eachOnce(verdicts: readonly IndexedVerdict[], count: number): IndexedVerdict[] | null {
  const sorted = [...verdicts].sort((a, b) => a.index - b.index);
  return sorted.length === count && sorted.every((verdict, position) => verdict.index === position) ? sorted : null;
}
