import { generateText, type LanguageModel } from 'ai';
import type { DiagnosisDraft } from '../draft/diagnosis-draft.ts';
import { parseDiagnosisDraft } from '../draft/parse-diagnosis-draft.ts';
import { DiagnosisAgentOutputError, DiagnosisExecutionError, DiagnosisInputError } from '../errors.ts';
import { classifyModelFailure } from '../harness/classify-model-failure.ts';
import { createHarness } from '../harness/create-harness.ts';
import { modelTelemetry } from '../harness/model-telemetry.ts';
import { raceAbort } from '../harness/race-abort.ts';
import type { ProgressSnapshot } from '../run/progress.ts';
import type { RunContext } from '../run/run-context.ts';
import type { StopReason } from '../run/stop-reason.ts';
import { utf8Bytes } from '../run/utf8.ts';
import type { AuditHook } from '../store/audit-hook.ts';
import type { EvidenceAdapters } from '../tools/evidence-adapter.ts';
import type { MaskingSession } from '../tools/masking/masking-session.ts';
import {
  assertTimeForARound,
  type PreparedInput,
  type PreviousTurn,
  prepareDiagnosisInput,
} from './diagnosis-input.ts';
import { buildDiagnosisInstructions } from './diagnosis-prompt.ts';

/** A run and its input: the raw query (and previous turn), or an input the caller already prepared and validated. */
export type DiagnosisRequest =
  | { run: RunContext; query: string; previousTurn?: PreviousTurn | null }
  | { run: RunContext; input: PreparedInput };

export interface DiagnosisDeps {
  model: LanguageModel;
  evidence: EvidenceAdapters;
  audit?: AuditHook;
  /** Receives the run's progress after every model round and tool call (live progress for readers). */
  onProgress?: (progress: ProgressSnapshot) => void;
  /**
   * Started with every model round's request, awaited before its answer is used (the service's cancel check); it may
   * abort the run's signal, never throw.
   */
  duringRound?: () => Promise<void>;
  /** The run's masking session and its counter of pseudonym batches (see `HarnessOptions`). */
  masking?: MaskingSession;
  nextPseudonymBatch?: () => number;
}

/**
 * The outcome of one run. `stopReason === null`: the agent finished on its own with a valid Draft. A Draft with a
 * stop reason: collection was stopped and the final round produced a valid Draft. `draft === null` always comes
 * with a stop reason.
 */
export interface DiagnosisExecution {
  draft: DiagnosisDraft | null;
  progress: ProgressSnapshot;
  stopReason: StopReason | null;
  /**
   * The soft stop that ended evidence collection, when `stopReason` names something that happened after it: the
   * final round ignored STOP_REQUIRED (`STOP_IGNORED`), or a hard stop came during the final round. Absent when
   * collection never stopped or `stopReason` already says why, so no stop reason is ever lost.
   */
  collectionStopReason?: StopReason;
}

const INSTRUCTIONS = buildDiagnosisInstructions();

/**
 * Runs the single Diagnosis Agent once: one `generateText` framework loop with the three evidence tools, inside the
 * harness (`createHarness`: budget and audit middlewares on every model round, the interceptor on every tool call).
 * No retry of the agent or of any model call, ever. Input problems throw {@link DiagnosisInputError} before any model
 * call; an invalid final text throws {@link DiagnosisAgentOutputError}; a provider call that fails or outlives
 * `modelRequestTimeoutMs` throws {@link DiagnosisExecutionError} `MODEL_FAILED` / `MODEL_TIMEOUT` with its safe
 * `modelFailure`; anything else unclassified throws {@link DiagnosisExecutionError} `INTERNAL`. It returns at the
 * deadline (stop reason DEADLINE) even if the provider or a hook ignores its abort signal.
 */
export async function runDiagnosis(request: DiagnosisRequest, deps: DiagnosisDeps): Promise<DiagnosisExecution> {
  const { run } = request;
  if (run.ledger.claimed) throw new DiagnosisExecutionError('INTERNAL', { cause: new Error('RunContext reused') });
  run.ledger.claimed = true;

  const input = 'input' in request ? request.input : prepareDiagnosisInput(request.query, request.previousTurn, run);
  assertTimeForARound(run.limits, run.deadlineAt - run.now());
  run.ledger.usage.inputBytes = input.bytes;

  const harness = createHarness({
    run,
    model: deps.model,
    evidence: deps.evidence,
    audit: deps.audit,
    onProgress: deps.onProgress,
    masking: deps.masking,
    nextPseudonymBatch: deps.nextPseudonymBatch,
    duringRound: deps.duringRound,
  });
  const ended = (draft: DiagnosisDraft | null, stopReason: StopReason | null): DiagnosisExecution => {
    const collectionStopReason = harness.collection.stopReason;
    return {
      draft,
      progress: harness.progress(),
      stopReason,
      ...(collectionStopReason === null || collectionStopReason === stopReason ? {} : { collectionStopReason }),
    };
  };
  try {
    if (run.signal?.aborted) return ended(null, 'CANCELLED');
    // NOTE: the loop is raced against the run's own signal, so the run ends at its deadline (or cancellation) even
    // when something inside the loop ignores its abort signal; whatever the loop does afterwards is ignored.
    const loop = generateText({
      model: harness.model,
      instructions: INSTRUCTIONS,
      prompt: input.text,
      tools: harness.tools,
      maxRetries: 0,
      toolCallConcurrency: 1,
      abortSignal: harness.abortSignal,
      stopWhen: harness.stopWhen,
      prepareStep: harness.prepareStep,
      repairToolCall: harness.repairToolCall,
      runtimeContext: { runId: run.runId, sessionId: run.sessionId },
      telemetry: modelTelemetry({ functionId: 'diagnosis_agent' }),
    });
    const result = await raceAbort(loop, harness.abortSignal);

    const last = result.steps.at(-1);
    if (last === undefined || last.content.some((part) => part.type === 'tool-call')) {
      return ended(null, harness.collection.finalRound ? 'STOP_IGNORED' : 'MODEL_CALL_BUDGET');
    }
    const parsed = parseDiagnosisDraft(last.text, run.limits, harness.callIds());
    if (!parsed.ok) {
      throw new DiagnosisAgentOutputError(
        parsed.code,
        harness.hasReadyCheck() ? harness.progress() : null,
        harness.collection.stopReason,
      );
    }
    run.ledger.usage.outputBytes = utf8Bytes(last.text);
    return ended(parsed.draft, harness.collection.stopReason);
  } catch (error) {
    if (error instanceof DiagnosisAgentOutputError) throw error;
    const failure = harness.classify(error);
    switch (failure.kind) {
      case 'stopped':
        return ended(null, failure.reason);
      case 'audit':
        throw new DiagnosisExecutionError('AUDIT_FAILED', { cause: failure.cause });
      case 'model': {
        const modelFailure = classifyModelFailure(failure.cause);
        const code = modelFailure.kind === 'TIMEOUT' ? 'MODEL_TIMEOUT' : 'MODEL_FAILED';
        throw new DiagnosisExecutionError(code, { cause: failure.cause, modelFailure });
      }
      default:
        throw new DiagnosisExecutionError('INTERNAL', { cause: failure.cause });
    }
  } finally {
    harness.dispose();
  }
}
