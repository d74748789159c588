// NOTE: the light subpath: every command (even --help) loads this file, and the core's index loads the model stack.
import { statusWordOfText } from '@diagnosis/core/status-words';
/**
 * The words the CLI uses for a run's outcome, in one place so the terminal, `trace`, the page and `runs` say the
 * same thing. NOTE: one status word per outcome, core's (`statusWordOf`): a run whose diagnosis was published is
 * PUBLISHED, as in the API and the result event; FALLBACK, FAILED, CANCELLED, QUEUED and RUNNING are their own word. Every stop reason and error code has one English sentence beside the report's Chinese text.
 */

/** The word shown for a run or release status; a value that is no status of ours is shown as it is. */
export function statusWord(status: string): string {
  return statusWordOfText(status);
}

const STOP_TEXT: Record<string, string> = {
  INFORMATION_SATURATED: 'the last checks brought no new information, so evidence collection stopped',
  TOOL_CALL_BUDGET: 'the run used up its tool calls (DIAGNOSIS_MAX_TOOL_CALLS)',
  MODEL_CALL_BUDGET: 'the run used up its model calls (DIAGNOSIS_MAX_MODEL_CALLS)',
  TOKEN_BUDGET: 'the run used up its token budget (DIAGNOSIS_MAX_TOTAL_TOKENS)',
  DEADLINE: 'the run reached its time limit before a verified conclusion',
  CANCELLED: 'someone cancelled the run',
  STOP_IGNORED: 'the model kept calling tools after it was told to stop and write the Draft',
  ROUND_TOOL_CALL_LIMIT: 'the model asked for more tool calls in one round than allowed; none of them ran',
  REJECTED_CALL_LIMIT: 'the tool boundary refused too many of the model’s calls (invalid input or protocol)',
};

const CODE_TEXT: Record<string, string> = {
  DRAFT_BLANK: 'the model’s final answer was empty',
  DRAFT_NOT_JSON:
    'the model’s final answer was not a bare JSON DiagnosisDraft (a ```json fence, text around it, or broken JSON); it is parsed strictly, never repaired: the model must return the JSON object as the whole message',
  DRAFT_SCHEMA:
    'the model’s final answer was JSON but not a valid DiagnosisDraft (a missing or unknown field, a value out of range)',
  DRAFT_TOO_LARGE: 'the model’s final answer was over the Draft’s size limit',
  GUARD_UNKNOWN_CITATION: 'the Draft cited a tool call that this run did not make or that did not succeed',
  GUARD_SUPPORTED_WITHOUT_EVIDENCE: 'a SUPPORTED item of the Draft cited no check that returned data',
  GUARD_CITES_ONLY_NO_GAIN: 'a SUPPORTED item cited only checks the agent itself judged NO_GAIN',
  GUARD_NO_EVIDENCE_NOT_EMPTY: 'the Draft marked a check that returned data as NO_EVIDENCE',
  GUARD_CONCLUSION_UNSUPPORTED: 'the Draft gave a conclusion without a verified finding behind it',
  SEMANTIC_GUARD_REJECTED: 'the independent judge found the conclusion not supported by the cited evidence',
  SEMANTIC_GUARD_FAILED: 'the independent judge could not finish, so nothing unchecked was published',
  MODEL_FAILED: 'the model endpoint’s call failed (status and error class above); the run did not retry',
  MODEL_TIMEOUT: 'the model endpoint did not answer within DIAGNOSIS_MODEL_TIMEOUT_MS',
  AUDIT_FAILED: 'the audit could not be written, so nothing is published',
  INTERNAL: 'an unexpected internal error; the function’s log has the run id',
  RUN_ABANDONED: 'an earlier invocation of the run stopped before it finished and the run was closed',
  RUN_ITEM_TOO_LARGE: 'the run’s result was over the store’s item limit',
  COMPLETION_FAILED: 'the run’s result could not be written to the table',
};

/** One English sentence for a stop reason, or `null` for one this CLI does not know. */
function explainStop(stopReason: string): string | null {
  return STOP_TEXT[stopReason] ?? null;
}

/** One English sentence for an error code, or `null` for one this CLI does not know. */
function explainCode(code: string): string | null {
  return CODE_TEXT[code] ?? null;
}

/**
 * Why a run did not publish, in English, once: the error code's sentence when there is one (it is the cause), else
 * the stop reason's; `null` when neither is known.
 */
export function explainOutcome(
  errorCode: string | null | undefined,
  stopReason: string | null | undefined,
): string | null {
  const byCode = errorCode === null || errorCode === undefined ? null : explainCode(errorCode);
  const byStop = stopReason === null || stopReason === undefined ? null : explainStop(stopReason);
  if (byCode !== null && byStop !== null && errorCode !== 'CANCELLED') return `${byCode} (after: ${byStop})`;
  return byCode ?? byStop;
}
