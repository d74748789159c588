/**
 * The hard limits of one diagnosis run. Every limit is enforced by the harness, never by the model:
 * a model that ignores its instructions still cannot exceed them.
 */
export interface RunLimits {
  /** Provider calls (model rounds) per run, the final Draft round included. */
  maxModelCalls: number;
  /** Input plus output tokens over all rounds, as reported by the provider. */
  maxTotalTokens: number;
  /** Business tool calls that actually executed (rejected and stopped calls do not count). */
  maxToolCalls: number;
  /**
   * Tool calls one model round may ask for, whatever becomes of them. A round that asks for more is discarded before
   * any of its calls runs, and the run stops (`ROUND_TOOL_CALL_LIMIT`).
   */
  maxToolCallsPerRound: number;
  /**
   * Tool calls the boundary may refuse (and audit) per run; the refusal that reaches it stops the run
   * (`REJECTED_CALL_LIMIT`).
   */
  maxRejectedToolCalls: number;
  /** UTF-8 bytes of the operator's query. */
  maxQueryBytes: number;
  /** UTF-8 bytes of the serialized PreviousTurn. */
  maxPreviousTurnBytes: number;
  /** UTF-8 bytes of the serialized user message `{ query, previous_turn }`. */
  maxInputBytes: number;
  /** UTF-8 bytes of the final model text that must parse as the Draft. */
  maxDraftBytes: number;
  /** Time kept free before the deadline for the final no-tool round that writes the Draft. */
  finalRoundReserveMs: number;
  /** Consecutive NO_GAIN evaluations after which collection stops as INFORMATION_SATURATED. */
  noGainStopStreak: number;
  /**
   * Milliseconds one provider call (one model round) may take before the run fails as `MODEL_TIMEOUT`. A round is
   * never given more than what is left before the run's deadline: when the deadline comes first, it stops the run
   * (`DEADLINE`).
   */
  modelRequestTimeoutMs: number;
}

export const DEFAULT_RUN_LIMITS: Readonly<RunLimits> = Object.freeze({
  maxModelCalls: 8,
  maxTotalTokens: 64_000,
  maxToolCalls: 6,
  // NOTE: a run executes at most `maxToolCalls` (6) calls and the protocol wants each non-empty result evaluated by the
  // next call, so an honest round asks for a few; 16 leaves room for a model that fans out over every tool and service
  // at once, and a round past it is a flood. 16 refusals are more than twice the executed budget: an honest model's
  // slips are a few per run, each taught by its observation. With both, a run holds at most 6 + 16 + 16 tool items.
  maxToolCallsPerRound: 16,
  maxRejectedToolCalls: 16,
  maxQueryBytes: 4_096,
  maxPreviousTurnBytes: 4_096,
  maxInputBytes: 12_288,
  maxDraftBytes: 16_384,
  finalRoundReserveMs: 20_000,
  noGainStopStreak: 2,
  // NOTE: DeepSeek thinking rounds take 5–30 s; 90 s is three times the slowest normal round, so a slow answer is
  // never cut, while a hung endpoint ends the run in a minute and a half instead of at the Lambda's deadline.
  modelRequestTimeoutMs: 90_000,
});

/**
 * Merges overrides onto the defaults. A limit that is not an integer within its range ({@link runLimitMinimum},
 * {@link runLimitMaximum}) is a programming error of the caller, so it throws a RangeError naming the key.
 */
export function buildRunLimits(overrides: Partial<RunLimits> = {}): Readonly<RunLimits> {
  const limits: RunLimits = { ...DEFAULT_RUN_LIMITS };
  for (const key of Object.keys(DEFAULT_RUN_LIMITS) as (keyof RunLimits)[]) {
    const value = overrides[key];
    if (value === undefined) continue;
    const minimum = runLimitMinimum(key);
    const maximum = runLimitMaximum(key);
    if (!Number.isSafeInteger(value) || value < minimum || (maximum !== null && value > maximum)) {
      const range = maximum === null ? `>= ${minimum}` : `from ${minimum} to ${maximum}`;
      throw new RangeError(`run limit ${key} must be an integer ${range}`);
    }
    limits[key] = value;
  }
  return Object.freeze(limits);
}

/** The settings (environment variables) that override a run limit, and the limit each one sets. */
export const RUN_LIMIT_SETTINGS = Object.freeze({
  DIAGNOSIS_MAX_MODEL_CALLS: 'maxModelCalls',
  DIAGNOSIS_MAX_TOTAL_TOKENS: 'maxTotalTokens',
  DIAGNOSIS_MAX_TOOL_CALLS: 'maxToolCalls',
  DIAGNOSIS_MAX_TOOL_CALLS_PER_ROUND: 'maxToolCallsPerRound',
  DIAGNOSIS_MAX_REJECTED_TOOL_CALLS: 'maxRejectedToolCalls',
  DIAGNOSIS_FINAL_ROUND_RESERVE_MS: 'finalRoundReserveMs',
  DIAGNOSIS_MODEL_TIMEOUT_MS: 'modelRequestTimeoutMs',
  DIAGNOSIS_MAX_QUERY_BYTES: 'maxQueryBytes',
  DIAGNOSIS_MAX_PREVIOUS_TURN_BYTES: 'maxPreviousTurnBytes',
  DIAGNOSIS_MAX_INPUT_BYTES: 'maxInputBytes',
} as const satisfies Record<string, keyof RunLimits>);

export type RunLimitSetting = keyof typeof RUN_LIMIT_SETTINGS;

/** The limit overrides named by parsed settings (unset settings keep the defaults). */
export function runLimitsFromSettings(
  settings: Partial<Record<RunLimitSetting, number | undefined>>,
): Partial<RunLimits> {
  const overrides: Partial<RunLimits> = {};
  for (const [setting, limit] of Object.entries(RUN_LIMIT_SETTINGS) as [RunLimitSetting, keyof RunLimits][]) {
    const value = settings[setting];
    if (value !== undefined) overrides[limit] = value;
  }
  return overrides;
}

/**
 * The smallest value a limit may take: the final round's reserve may be 0; a previous turn is given at least
 * {@link MIN_PREVIOUS_TURN_BYTES}, so the smallest form `buildPreviousTurn` can cut one to always fits; every other
 * limit is at least 1.
 */
export function runLimitMinimum(limit: keyof RunLimits): number {
  if (limit === 'finalRoundReserveMs') return 0;
  if (limit === 'maxPreviousTurnBytes') return MIN_PREVIOUS_TURN_BYTES;
  return 1;
}

/**
 * The largest value a limit may be set to, or null for none. NOTE: the query is stored in the new run item, which is
 * capped at 64 KiB; half of that leaves room for its keys and the rest of the request.
 */
export function runLimitMaximum(limit: keyof RunLimits): number | null {
  return limit === 'maxQueryBytes' ? MAX_QUERY_BYTES_SETTING : null;
}

/**
 * A previous turn cut to its smallest form (a run id of at most 128 characters, items of 15 characters, no list
 * entries) serializes to well under this many bytes, whatever its characters.
 */
const MIN_PREVIOUS_TURN_BYTES = 512;
const MAX_QUERY_BYTES_SETTING = 32_768;
