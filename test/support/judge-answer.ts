/** A verdict as a test writes it: the report's form (with or without its index). */
interface WrittenVerdict {
  index?: number;
  verdict: string;
  reason: string;
}

const positional = (list: readonly WrittenVerdict[]) =>
  [...list].sort((a, b) => (a.index ?? 0) - (b.index ?? 0)).map((item) => [item.verdict, item.reason]);

/**
 * The text a judge writes for verdicts given in the report's form: positional, `[verdict, reason]` per claim in each
 * list's order (by index when given), `null` for no conclusion, a list left out when it is left out here.
 */
export function judgeAnswer(verdicts: {
  analysis: readonly WrittenVerdict[];
  conclusion: WrittenVerdict | null;
  recommendations?: readonly WrittenVerdict[];
  action_plan?: readonly WrittenVerdict[];
}): string {
  return JSON.stringify({
    analysis: positional(verdicts.analysis),
    conclusion: verdicts.conclusion === null ? null : [verdicts.conclusion.verdict, verdicts.conclusion.reason],
    ...(verdicts.recommendations === undefined ? {} : { recommendations: positional(verdicts.recommendations) }),
    ...(verdicts.action_plan === undefined ? {} : { action_plan: positional(verdicts.action_plan) }),
  });
}
