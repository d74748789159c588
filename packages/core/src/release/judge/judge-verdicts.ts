import { toJsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import type { DiagnosisDraft } from '../../draft/diagnosis-draft.ts';

/** What the judge may say of one claim. */
export const VERDICTS = Object.freeze(['SUPPORTED', 'UNSUPPORTED', 'UNCLEAR'] as const);
export type Verdict = (typeof VERDICTS)[number];

/**
 * The longest reason the judge may give for one verdict, in characters (one line). NOTE: a reason is output the judge
 * pays for at the output price on every claim; the report shows it and a removed claim's limitation line quotes it,
 * and for both a short line naming the fact found or missing is enough.
 */
export const MAX_VERDICT_REASON_CHARS = 120;

const verdictSchema = v.picklist(VERDICTS);
const reasonSchema = v.pipe(
  v.string(),
  v.minLength(1),
  v.maxLength(MAX_VERDICT_REASON_CHARS),
  v.regex(/^[^\r\n]+$/, 'one line'),
);

/** One verdict as the judge writes it: `[verdict, reason]`. */
const positionalVerdict = v.strictTuple([verdictSchema, reasonSchema]);

/** Verdicts on a list of the Draft's claims, positional: the i-th entry is the verdict on the i-th claim. */
const positionalVerdicts = (max: number) => v.pipe(v.array(positionalVerdict), v.maxLength(max));

/**
 * The judge's output, positional: one `[verdict, reason]` per analysis item of the Draft, in its order; one for the
 * conclusion (null when the Draft has none); and one per recommendation and per action-plan step (each list may be
 * left out only when the Draft has none of its kind). NOTE: an entry's place names its claim, so it carries no
 * `index` and no keys (about 9 tokens a verdict fewer than `{"index", "verdict", "reason"}`). Strict: unknown keys and
 * longer tuples are refused.
 */
export const judgeVerdictsSchema = v.strictObject({
  analysis: positionalVerdicts(10),
  conclusion: v.nullable(positionalVerdict),
  recommendations: v.optional(positionalVerdicts(8)),
  action_plan: v.optional(positionalVerdicts(8)),
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
 * verdict per analysis item, per recommendation and per action-plan step (each list as long as the Draft's) and a
 * conclusion verdict exactly when the Draft has a conclusion. Anything else is garbage, and the guard fails closed on
 * it. The verdicts come back in the report's form, each list's entries with their index.
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
  const analysis = onePerClaim(output.analysis, draft.analysis.length);
  const recommendations = onePerClaim(output.recommendations ?? [], draft.recommendations.length);
  const actionPlan = onePerClaim(output.action_plan ?? [], draft.action_plan.length);
  if (analysis === null || recommendations === null || actionPlan === null) return { ok: false };
  if ((output.conclusion === null) !== (draft.conclusion === null)) return { ok: false };
  const conclusion =
    output.conclusion === null ? null : { verdict: output.conclusion[0], reason: output.conclusion[1] };
  return { ok: true, verdicts: { analysis, conclusion, recommendations, action_plan: actionPlan } };
}

/** The positional verdicts with their indexes when there is exactly one per claim (`count` of them); null otherwise. */
function onePerClaim(verdicts: readonly (readonly [Verdict, string])[], count: number): IndexedVerdict[] | null {
  if (verdicts.length !== count) return null;
  return verdicts.map(([verdict, reason], index) => ({ index, verdict, reason }));
}
