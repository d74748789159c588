import type { ToolDisposition } from '../store/audit-hook.ts';
import {
  type Observation,
  type RejectionCode,
  type RejectionDetail,
  rejectedObservation,
  stopRequiredObservation,
} from '../tools/observation.ts';

/**
 * What the tool boundary decided about one call: the observation the model gets and the fields of its audit record.
 * Every step of the boundary answers with one of these, so a refusal, a stop and an executed call travel the same
 * way to the audit.
 */
export interface ToolOutcome {
  disposition: ToolDisposition;
  status: 'READY' | 'ERROR' | null;
  empty: boolean;
  code: string | null;
  observation: Observation;
  result: unknown;
  errorDetail: string | null;
}

/** A call the boundary refused before any adapter ran (it counts towards `maxRejectedToolCalls`). */
export function rejectedOutcome(toolCallId: string, code: RejectionCode, detail: RejectionDetail = {}): ToolOutcome {
  return {
    disposition: 'REJECTED',
    status: null,
    empty: false,
    code,
    observation: rejectedObservation(toolCallId, code, detail),
    result: null,
    errorDetail: null,
  };
}

/** A call that arrived after collection ended: not run, answered with STOP_REQUIRED. */
export function stoppedOutcome(toolCallId: string): ToolOutcome {
  return {
    disposition: 'STOPPED',
    status: null,
    empty: false,
    code: 'STOP_REQUIRED',
    observation: stopRequiredObservation(toolCallId),
    result: null,
    errorDetail: null,
  };
}
