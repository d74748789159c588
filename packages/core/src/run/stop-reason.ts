/**
 * Why evidence collection (or the whole run) stopped before the agent finished on its own.
 * - soft stops end collection and offer one final no-tool round for the Draft:
 *   INFORMATION_SATURATED, TOOL_CALL_BUDGET, MODEL_CALL_BUDGET, TOKEN_BUDGET, DEADLINE;
 * - hard stops end the run at once with no Draft: DEADLINE (passed), CANCELLED, MODEL_CALL_BUDGET / TOKEN_BUDGET
 *   (exhausted mid-round);
 * - STOP_IGNORED: the final round called a tool instead of writing the Draft;
 * - hard stops of a model that floods the tool boundary: ROUND_TOOL_CALL_LIMIT (one round asked for more tool calls
 *   than `maxToolCallsPerRound`; none of them ran), REJECTED_CALL_LIMIT (the boundary refused `maxRejectedToolCalls`
 *   calls of the run).
 */
export const STOP_REASONS = Object.freeze([
  'INFORMATION_SATURATED',
  'TOOL_CALL_BUDGET',
  'MODEL_CALL_BUDGET',
  'TOKEN_BUDGET',
  'DEADLINE',
  'CANCELLED',
  'STOP_IGNORED',
  'ROUND_TOOL_CALL_LIMIT',
  'REJECTED_CALL_LIMIT',
] as const);

export type StopReason = (typeof STOP_REASONS)[number];
