import type { ChangeIncident } from '../change/change-placement.ts';
import type { RunContext } from '../run/run-context.ts';
import { utf8Bytes } from '../run/utf8.ts';
import type { AuditHook } from '../store/audit-hook.ts';
import type { EvidenceAdapters, ToolName } from '../tools/evidence-adapter.ts';
import type { MaskingSession } from '../tools/masking/masking-session.ts';
import { parseToolCallId, type ToolCallId } from '../tools/tool-call-id.ts';
import type { ParsedEnvelope } from '../tools/tool-inputs.ts';
import { admitToolCall } from './admit-tool-call.ts';
import { auditToolCall } from './audit-tool-call.ts';
import { reachedRejectedCallLimit } from './budget-policy.ts';
import type { CallRefs } from './call-refs.ts';
import type { CollectionState } from './collection-state.ts';
import { HarnessStop } from './harness-signals.ts';
import { observeAdapterResult } from './observe-adapter-result.ts';
import type { ProgressTracker } from './progress-tracker.ts';
import { recordToolExecution } from './record-tool-execution.ts';
import { type AnyEvidenceAdapter, runEvidenceAdapter } from './run-evidence-adapter.ts';
import { rejectedOutcome, type ToolOutcome } from './tool-outcome.ts';

export interface ToolInterceptorOptions {
  run: RunContext;
  tracker: ProgressTracker;
  collection: CollectionState;
  evidence: EvidenceAdapters;
  audit: AuditHook | undefined;
  parseEnvelope: (toolName: ToolName, raw: unknown) => ParsedEnvelope;
  /**
   * The run's masking: every result is masked before anything sees it (the model, the judge, the audit, the live
   * view), and pseudonyms in a call's arguments are restored for the adapter (only those the run has shown).
   */
  masking: MaskingSession;
  /** The run's counter of pseudonym batches (shared with the service, which stores the input's own). */
  nextPseudonymBatch: () => number;
  /** Aborts when collection must end: cancellation, or the start of the final round's time reserve. */
  collectionSignal: AbortSignal;
  /**
   * Ends the whole run (used when the audit fails inside a tool call, where a throw would only become a tool-error,
   * and when the run's refusals reach their limit). The loop then runs no further call: the SDK checks the run's
   * signal before each one (tool calls run one at a time).
   */
  abortRun: (reason: unknown) => void;
  /** Numbers every call the boundary answers, the number its observation shows and the Draft cites it by. */
  callRefs: CallRefs;
  /** Called after every tool call the boundary answered (live progress); must not throw. */
  onToolCall?: () => void;
}

/**
 * The boundary every tool call crosses, built per run, as a short composition of its steps: check the model's id
 * (`parseToolCallId`), admit the call (`admitToolCall`: the envelope, the business input, the incident window, the
 * progress protocol, repeats), run the adapter with the tenant of the run under the collection signal
 * (`runEvidenceAdapter`), project and mask its answer (`observeAdapterResult`), record progress
 * (`recordToolExecution`) and audit the call (`auditToolCall`). It always answers with an observation; it throws only
 * when the audit failed (and then the run is already aborted). The refusal that reaches `maxRejectedToolCalls` stops
 * the run (`REJECTED_CALL_LIMIT`) once it is audited.
 */
export function createToolInterceptor(options: ToolInterceptorOptions) {
  const { run, tracker, collection, evidence, audit, collectionSignal, masking } = options;
  const { usage } = run.ledger;
  const admission = {
    run,
    tracker,
    collection,
    masking,
    catalog: evidence.query_mysql.catalog,
    parseEnvelope: options.parseEnvelope,
  };
  const auditing =
    audit === undefined
      ? undefined
      : { audit, masking, nextPseudonymBatch: options.nextPseudonymBatch, abortRun: options.abortRun };

  return async function interceptToolCall(toolName: ToolName, rawInput: unknown, modelToolCallId: string) {
    const startedAt = run.now();
    // NOTE: only the checked id, or a bounded copy of a refused one, travels on (observation, audit), so the 8 KiB
    // observation contract and the store's item sizes hold for every id.
    const id = parseToolCallId(modelToolCallId);
    options.callRefs.assign(modelToolCallId, id.id);
    const outcome = id.ok ? await decide(toolName, rawInput, id.id) : rejectedOutcome(id.id, 'INVALID_TOOL_CALL_ID');
    // NOTE: every refusal counts towards `maxRejectedToolCalls`, whichever step refused the call.
    if (outcome.disposition === 'REJECTED') tracker.recordRejected();
    const observationJson = JSON.stringify(outcome.observation);
    collection.observationBytesSinceRound += utf8Bytes(observationJson);
    // NOTE: a pseudonym may be used in a later call only once the model has seen it, in the observation as sent.
    masking.markShown(observationJson);
    if (auditing !== undefined) {
      await auditToolCall(auditing, {
        sessionId: run.sessionId,
        runId: run.runId,
        stepNumber: usage.modelCalls,
        toolCallId: id.id,
        toolName,
        input: rawInput,
        ...outcome,
        startedAt,
        endedAt: run.now(),
      });
    }
    options.onToolCall?.();
    // NOTE: refusals cost an audit item and prompt tokens each and never count against `maxToolCalls`; the refusal
    // that reaches their limit is the run's last (audited above), so a run never holds more than the limit.
    if (outcome.disposition === 'REJECTED' && reachedRejectedCallLimit(run, tracker.rejectedCount())) {
      options.abortRun(new HarnessStop('REJECTED_CALL_LIMIT'));
    }
    return outcome.observation;
  };

  async function decide(toolName: ToolName, rawInput: unknown, toolCallId: ToolCallId): Promise<ToolOutcome> {
    const admitted = admitToolCall(admission, toolName, rawInput, toolCallId);
    if (!admitted.admitted) return admitted.outcome;
    usage.toolCalls += 1;
    const result = await runEvidenceAdapter(
      evidence[toolName] as AnyEvidenceAdapter,
      {
        runId: run.runId,
        sessionId: run.sessionId,
        enterpriseId: run.enterpriseId,
        toolCallId,
        toolName,
        input: admitted.input,
        signal: collectionSignal,
        ...incidentOf(run),
      },
      collectionSignal,
    );
    const outcome = observeAdapterResult(toolName, toolCallId, result, masking);
    recordToolExecution(run, tracker, collection, { toolCallId, toolName, canonical: admitted.canonical }, outcome);
    return outcome;
  }
}

/**
 * The run's incident as the change stream places changes against it: the window's start and when the symptom began,
 * both set by code (the trigger); nothing for a run without both.
 */
function incidentOf(run: RunContext): { incident?: ChangeIncident } {
  if (run.window === null || run.symptomAt === null) return {};
  return { incident: { windowFromMs: Date.parse(run.window.from), symptomAtMs: Date.parse(run.symptomAt) } };
}
