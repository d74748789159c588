import { safeErrorName } from '../errors.ts';
import { isToolCallId, MAX_TOOL_CALL_ID_CHARS } from '../run/ids.ts';
import { overlapsIncidentWindow } from '../run/incident-window.ts';
import type { RunContext } from '../run/run-context.ts';
import { truncateChars } from '../run/utf8.ts';
import { formatZonedIso } from '../run/zoned-time.ts';
import type { AuditHook, ToolDisposition, ToolInvocationEvent } from '../store/audit-hook.ts';
import { canonicalInput } from '../tools/canonical-input.ts';
import {
  type AdapterResult,
  EVIDENCE_ERROR_CODES,
  type EvidenceAdapters,
  type EvidenceErrorCode,
  type ToolCallRequest,
  type ToolName,
} from '../tools/evidence-adapter.ts';
import { type EvidenceMasker, isRecord, projectEvidence } from '../tools/evidence-projection.ts';
import type { MaskingSession } from '../tools/masking/masking-session.ts';
import { sealNewPseudonyms } from '../tools/masking/pseudonym-map.ts';
import {
  emptyObservation,
  errorObservation,
  type Observation,
  observationBytes,
  okObservation,
  type RejectionCode,
  type RejectionDetail,
  rejectedObservation,
  stopRequiredObservation,
} from '../tools/observation.ts';
import type { ParsedEnvelope } from '../tools/tool-inputs.ts';
import { inFinalRoundReserve, reachedRejectedCallLimit, saturated, softStopAfterToolCall } from './budget-policy.ts';
import { type CollectionState, stopCollection } from './collection-state.ts';
import { AuditFailure, HarnessStop } from './harness-signals.ts';
import type { ProgressTracker } from './progress-tracker.ts';

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
  /** Called after every tool call the boundary answered (live progress); must not throw. */
  onToolCall?: () => void;
}

type Outcome = {
  disposition: ToolDisposition;
  status: 'READY' | 'ERROR' | null;
  empty: boolean;
  code: string | null;
  observation: Observation;
  result: unknown;
  errorDetail: string | null;
};

/**
 * The boundary every tool call crosses, built per run. It validates the envelope and the business input, enforces
 * the progress protocol (a pending non-empty result must be evaluated by the next call, naming its exact id), refuses
 * repeats, runs the adapter with the tenant of the run, projects the result, updates progress and audits the call.
 * It always answers with an observation; it throws only when the audit failed (and then the run is already aborted).
 * The refusal that reaches `maxRejectedToolCalls` stops the run (`REJECTED_CALL_LIMIT`) once it is audited.
 */
export function createToolInterceptor(options: ToolInterceptorOptions) {
  const { run, tracker, collection, evidence, audit, parseEnvelope, collectionSignal, abortRun, masking } = options;
  const { usage } = run.ledger;
  const identity = { runId: run.runId, sessionId: run.sessionId };
  const masker: EvidenceMasker = {
    text: masking.maskText,
    cell: (value, column) => masking.maskValue(value, column) as string | number,
  };

  return async function interceptToolCall(toolName: ToolName, rawInput: unknown, modelToolCallId: string) {
    const startedAt = run.now();
    // NOTE: the id is the model's choice. One that is too long or has unsafe characters is refused before anything
    // else, and only a bounded copy of it travels on (observation, audit), so the 8 KiB observation contract and the
    // store's item sizes hold for every id.
    const validId = isToolCallId(modelToolCallId);
    const toolCallId = validId ? modelToolCallId : truncateChars(String(modelToolCallId), MAX_TOOL_CALL_ID_CHARS);
    const outcome = validId ? await decide(toolName, rawInput, toolCallId) : reject(toolCallId, 'INVALID_TOOL_CALL_ID');
    collection.observationBytesSinceRound += observationBytes(outcome.observation);
    // NOTE: a pseudonym may be used in a later call only once the model has seen it, in the observation as sent.
    masking.markShown(JSON.stringify(outcome.observation));
    if (audit !== undefined) {
      const event: ToolInvocationEvent = {
        sessionId: run.sessionId,
        runId: run.runId,
        stepNumber: usage.modelCalls,
        toolCallId,
        toolName,
        input: rawInput,
        ...outcome,
        startedAt,
        endedAt: run.now(),
      };
      try {
        // The map first: a pseudonym in a stored observation always has its value stored too.
        for (const batch of sealNewPseudonyms(masking, identity, options.nextPseudonymBatch)) {
          await audit.onPseudonyms?.(batch);
        }
        await audit.onToolInvocation(event);
      } catch (error) {
        const failure = new AuditFailure('tool invocation audit failed', { cause: error });
        abortRun(failure);
        throw failure;
      }
    }
    options.onToolCall?.();
    // NOTE: refusals cost an audit item and prompt tokens each and never count against `maxToolCalls`; the refusal
    // that reaches their limit is the run's last (audited above), so a run never holds more than the limit.
    if (outcome.disposition === 'REJECTED' && reachedRejectedCallLimit(run, tracker.rejectedCount())) {
      abortRun(new HarnessStop('REJECTED_CALL_LIMIT'));
    }
    return outcome.observation;
  };

  async function decide(toolName: ToolName, rawInput: unknown, toolCallId: string): Promise<Outcome> {
    if (!tracker.claimToolCallId(toolCallId)) return reject(toolCallId, 'DUPLICATE_TOOL_CALL_ID');
    checkCollectionWindow();
    if (collection.stopReason !== null) return stopped(toolCallId);

    // NOTE: the model names values by the pseudonyms it saw; the adapter needs the real ones. A pseudonym this run has
    // not shown (made up, or from another run) refuses the call: it must never reach a source as a search term.
    const unmasked = unmaskEnvelope(toolName, rawInput);
    if (unmasked === null) return reject(toolCallId, 'UNKNOWN_PSEUDONYM');
    const parsed = parseEnvelope(toolName, unmasked);
    if (!parsed.ok) return reject(toolCallId, 'INVALID_INPUT', { paths: parsed.paths });
    // NOTE: the incident window is the run's, set by code; a time range outside it is refused like a bad input,
    // before the adapter runs, whatever the model chose.
    if (run.window !== null && parsed.timeRange !== null) {
      if (!overlapsIncidentWindow(run.window, parsed.timeRange.startMs, parsed.timeRange.endMs)) {
        return reject(toolCallId, 'OUTSIDE_INCIDENT_WINDOW', {
          window: {
            from: formatZonedIso(Date.parse(run.window.from), run.timeZone),
            to: formatZonedIso(Date.parse(run.window.to), run.timeZone),
          },
        });
      }
    }

    const pending = tracker.pending();
    const previous = parsed.envelope.previous_observation;
    if (pending !== undefined) {
      if (previous === undefined) {
        return reject(toolCallId, 'MISSING_PREVIOUS_OBSERVATION', { expectedToolCallId: pending.toolCallId });
      }
      if (previous.tool_call_id !== pending.toolCallId) {
        return reject(toolCallId, 'PREVIOUS_OBSERVATION_MISMATCH', { expectedToolCallId: pending.toolCallId });
      }
      tracker.evaluate(pending, previous.evaluation);
      checkSaturation();
      if (collection.stopReason !== null) return stopped(toolCallId);
    } else if (previous !== undefined) {
      return reject(toolCallId, 'PREVIOUS_OBSERVATION_MISMATCH');
    }

    const canonical = canonicalInput(toolName, parsed.envelope.input);
    if (tracker.isDuplicate(canonical)) {
      tracker.countNoGain();
      checkSaturation();
      return reject(toolCallId, 'DUPLICATE_CALL');
    }

    const request: ToolCallRequest<unknown> = {
      runId: run.runId,
      sessionId: run.sessionId,
      enterpriseId: run.enterpriseId,
      toolCallId,
      toolName,
      input: parsed.envelope.input,
      signal: collectionSignal,
    };
    usage.toolCalls += 1;
    const result = await executeAdapter(toolName, request);
    const outcome = toOutcome(toolName, toolCallId, result);
    tracker.recordExecuted(
      {
        toolCallId,
        toolName,
        status: outcome.status === 'ERROR' ? 'ERROR' : 'READY',
        empty: outcome.empty,
        evaluation: outcome.observation.evidence_status === 'OK' ? 'PENDING' : null,
      },
      canonical,
    );
    if (outcome.status === 'READY' && outcome.empty) {
      tracker.countNoGain();
      checkSaturation();
    }
    const afterCall = softStopAfterToolCall(run);
    if (afterCall !== null) stopCollection(collection, afterCall);
    return outcome;
  }

  function unmaskEnvelope(toolName: ToolName, rawInput: unknown): unknown {
    if (!isRecord(rawInput) || !Object.hasOwn(rawInput, 'input')) return rawInput;
    const restored = masking.unmaskInput(
      rawInput.input,
      toolName === 'query_mysql' ? integerParams(rawInput.input) : undefined,
    );
    return restored.ok ? { ...rawInput, input: restored.value } : null;
  }

  /** The integer parameters of the catalog query a `query_mysql` input names (a pseudonym there may stand for a number). */
  function integerParams(input: unknown): ReadonlySet<string> {
    const name = isRecord(input) ? input.query_name : undefined;
    const entry = evidence.query_mysql.catalog.find((candidate) => candidate.name === name);
    return new Set(
      Object.entries(entry?.params ?? {}).flatMap(([param, descriptor]) =>
        descriptor.type === 'integer' ? [param] : [],
      ),
    );
  }

  // NOTE: the tool-call budget needs no check here: the call that reaches it stops collection right after it runs.
  function checkCollectionWindow(): void {
    if (inFinalRoundReserve(run)) stopCollection(collection, 'DEADLINE');
  }

  function checkSaturation(): void {
    if (saturated(run, tracker.noGainStreak())) stopCollection(collection, 'INFORMATION_SATURATED');
  }

  function reject(toolCallId: string, code: RejectionCode, detail: RejectionDetail = {}): Outcome {
    tracker.recordRejected();
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

  function stopped(toolCallId: string): Outcome {
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

  /** Runs the adapter, bounded by the collection signal; a throw or a hang becomes a stable error result. */
  async function executeAdapter(
    toolName: ToolName,
    request: ToolCallRequest<unknown>,
  ): Promise<AdapterResult<unknown>> {
    if (collectionSignal.aborted) return { status: 'ERROR', code: 'TIMEOUT', detail: 'collection window closed' };
    const adapter = evidence[toolName] as { execute(call: ToolCallRequest<unknown>): Promise<AdapterResult<unknown>> };
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<AdapterResult<unknown>>((resolve) => {
      onAbort = () => resolve({ status: 'ERROR', code: 'TIMEOUT', detail: 'aborted by the harness' });
      collectionSignal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      const call = Promise.resolve().then(() => adapter.execute(request));
      // NOTE: an adapter that settles after the race was decided must not surface as an unhandled rejection.
      call.catch(() => undefined);
      return await Promise.race([call, aborted]);
    } catch (error) {
      return { status: 'ERROR', code: 'INTERNAL', detail: `adapter threw ${safeErrorName(error)}` };
    } finally {
      if (onAbort !== undefined) collectionSignal.removeEventListener('abort', onAbort);
    }
  }

  function toOutcome(toolName: ToolName, toolCallId: string, result: AdapterResult<unknown>): Outcome {
    if (isRecord(result) && result.status === 'OK') {
      const projection = projectEvidence(toolName, result.data, masker);
      if (!projection.ok) return errorOutcome(toolCallId, 'INTERNAL', 'adapter returned data of the wrong shape');
      if (projection.empty) return readyEmpty(toolCallId, result.data);
      return {
        disposition: 'EXECUTED',
        status: 'READY',
        empty: false,
        code: null,
        observation: okObservation(toolCallId, projection.data),
        result: masking.maskValue(result.data),
        errorDetail: null,
      };
    }
    if (isRecord(result) && result.status === 'EMPTY') return readyEmpty(toolCallId, null);
    if (isRecord(result) && result.status === 'ERROR') {
      const code = EVIDENCE_ERROR_CODES.includes(result.code as EvidenceErrorCode)
        ? (result.code as EvidenceErrorCode)
        : 'INTERNAL';
      const detail =
        typeof result.detail === 'string' ? masking.maskText(result.detail.slice(0, 4_000)).slice(0, 1_000) : null;
      return errorOutcome(toolCallId, code, detail);
    }
    return errorOutcome(toolCallId, 'INTERNAL', 'adapter returned no valid result');
  }

  function readyEmpty(toolCallId: string, data: unknown): Outcome {
    return {
      disposition: 'EXECUTED',
      status: 'READY',
      empty: true,
      code: null,
      observation: emptyObservation(toolCallId),
      result: data === null ? null : masking.maskValue(data),
      errorDetail: null,
    };
  }

  function errorOutcome(toolCallId: string, code: EvidenceErrorCode, errorDetail: string | null): Outcome {
    return {
      disposition: 'EXECUTED',
      status: 'ERROR',
      empty: false,
      code,
      observation: errorObservation(toolCallId, code),
      result: null,
      errorDetail,
    };
  }
}
