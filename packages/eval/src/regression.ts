/**
 * A captured scenario's row in the scorecard: what the responder said of the original run, what the run did, what
 * the replay did, and whether the replay regressed — it does not meet the responder's expectation (a CORRECT run
 * replayed to anything else, or a WRONG run replayed to the same wrong conclusion).
 */
import type { ScenarioCapture, ScenarioVerdict } from './scenario.ts';
import type { RunObservation } from './score.ts';

export interface CapturedRow {
  runId: string;
  /** The responder's verdict on the original run. */
  feedbackVerdict: ScenarioCapture['feedback']['verdict'];
  originalStatus: ScenarioCapture['original']['status'];
  originalConclusion: string | null;
  replayedStatus: RunObservation['status'];
  replayedConclusion: string | null;
  /** The replay's own verdict against the responder's expectation is not CORRECT. */
  regressed: boolean;
  /** Tool calls of the replay the recording could not answer (NOT_RECORDED). */
  notRecorded: number;
}

export function capturedRow(
  capture: ScenarioCapture,
  observation: RunObservation,
  verdict: ScenarioVerdict,
  notRecorded: number,
): CapturedRow {
  return {
    runId: capture.runId,
    feedbackVerdict: capture.feedback.verdict,
    originalStatus: capture.original.status,
    originalConclusion: capture.original.conclusion,
    replayedStatus: observation.status,
    replayedConclusion: observation.conclusion,
    regressed: verdict !== 'CORRECT',
    notRecorded,
  };
}
