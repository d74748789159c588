import type { StopReason } from '../run/stop-reason.ts';

/**
 * Whether evidence collection is still open. Once a soft stop is decided it is final for the run: every later tool
 * call gets STOP_REQUIRED and the next round is the final one, in which the model may call no tool.
 */
export interface CollectionState {
  /** The first soft stop decided, or null while collection is open. */
  stopReason: StopReason | null;
  /** True once the final no-tool round has been prepared. */
  finalRound: boolean;
  /** Input and output tokens of the latest round, and observation bytes sent since: the next round's estimate. */
  lastRoundTokens: number;
  observationBytesSinceRound: number;
}

export function createCollectionState(): CollectionState {
  return { stopReason: null, finalRound: false, lastRoundTokens: 0, observationBytesSinceRound: 0 };
}

export function stopCollection(state: CollectionState, reason: StopReason): void {
  if (state.stopReason === null) state.stopReason = reason;
}
