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

/**
 * The judge's output: one verdict per analysis item of the Draft (by its 0-based index) and one for the conclusion
 * (null when the Draft has none). Strict objects: unknown keys are refused.
 */
export const judgeVerdictsSchema = v.strictObject({
  analysis: v.pipe(
    v.array(
      v.strictObject({
        index: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(9)),
        verdict: verdictSchema,
        reason: reasonSchema,
      }),
    ),
    v.maxLength(10),
  ),
  conclusion: v.nullable(v.strictObject({ verdict: verdictSchema, reason: reasonSchema })),
});

export type JudgeVerdicts = v.InferOutput<typeof judgeVerdictsSchema>;

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
 * verdict per analysis item (every index from 0 to n-1 once) and a conclusion verdict exactly when the Draft has a
 * conclusion. Anything else is garbage, and the guard fails closed on it.
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
  const verdicts = result.output;
  const indexes = verdicts.analysis.map((item) => item.index).sort((a, b) => a - b);
  if (indexes.length !== draft.analysis.length || indexes.some((index, position) => index !== position)) {
    return { ok: false };
  }
  if ((verdicts.conclusion === null) !== (draft.conclusion === null)) return { ok: false };
  return { ok: true, verdicts: { ...verdicts, analysis: [...verdicts.analysis].sort((a, b) => a.index - b.index) } };
}
