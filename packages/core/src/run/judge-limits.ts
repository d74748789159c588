/**
 * The SemanticGuard's modes: `enforce` (its verdicts decide what is published), `shadow` (its verdicts are recorded
 * and shown, the release is unchanged) and `off` (no judge call).
 */
export const SEMANTIC_GUARD_MODES = Object.freeze(['enforce', 'shadow', 'off'] as const);
export type SemanticGuardMode = (typeof SEMANTIC_GUARD_MODES)[number];

/**
 * The judge's own small budget: one model call after the agent's loop, never counted against the agent's limits (it
 * is counted in the run's usage). Compared only in the harness's budget policy.
 */
export interface JudgeLimits {
  /** Input plus output tokens of the one judge call, as reported by the provider. */
  maxTotalTokens: number;
  /** The output tokens the judge may ask for (reasoning included, for thinking models). */
  maxOutputTokens: number;
  /** The most time the judge call may take. */
  maxTimeMs: number;
  /** The share of the time left before the run's deadline the judge may take, in percent (when less than maxTimeMs). */
  timeSharePercent: number;
  /** Below this much time the judge is not called at all (and the guard fails closed in enforce mode). */
  minTimeMs: number;
  /** UTF-8 bytes of one check's observation as the judge sees it (the agent saw at most 8 KiB). */
  maxObservationBytes: number;
  /** UTF-8 bytes of all observations given to the judge together. */
  maxEvidenceBytes: number;
  /** UTF-8 bytes of the judge's final text that must parse as its verdicts. */
  maxVerdictBytes: number;
}

export const DEFAULT_JUDGE_LIMITS: Readonly<JudgeLimits> = Object.freeze({
  // NOTE: the worst bounded prompt (instructions, a 4 KiB query, a 16 KiB Draft, 48 KiB of evidence) is about 72 KB,
  // estimated at 2 bytes a token (~36,000 tokens); with 6,000 output tokens it fits 48,000. A typical prompt is far
  // smaller (the E1001 demo's is about 5,000 tokens).
  maxTotalTokens: 48_000,
  maxOutputTokens: 6_000,
  maxTimeMs: 30_000,
  timeSharePercent: 25,
  minTimeMs: 2_000,
  maxObservationBytes: 8 * 1024,
  maxEvidenceBytes: 48 * 1024,
  maxVerdictBytes: 16 * 1024,
});
