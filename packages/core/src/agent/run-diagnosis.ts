import type { LanguageModelV4 } from '@ai-sdk/provider';
import { generateText, InvalidToolInputError, isStepCount, type LanguageModel, wrapLanguageModel } from 'ai';
import type { DiagnosisDraft } from '../draft/diagnosis-draft.ts';
import { parseDiagnosisDraft } from '../draft/parse-diagnosis-draft.ts';
import { createBudgetMiddleware } from '../harness/budget-middleware.ts';
import { type CollectionState, createCollectionState, stopCollection } from '../harness/collection-state.ts';
import { AuditFailure, HarnessStop, ModelCallFailure } from '../harness/harness-signals.ts';
import { createToolInterceptor } from '../harness/tool-interceptor.ts';
import { createProgressTracker, type ProgressSnapshot, type ProgressTracker } from '../run/progress-tracker.ts';
import { type RunContext, type RunLedger, runLedger } from '../run/run-context.ts';
import type { StopReason } from '../run/stop-reason.ts';
import { utf8Bytes } from '../run/utf8.ts';
import type { AuditHook } from '../store/audit-hook.ts';
import { buildDiagnosisTools, UNPARSEABLE_INPUT_MARKER } from '../tools/diagnosis-tools.ts';
import type { EvidenceAdapters } from '../tools/evidence-adapter.ts';
import { STOP_REQUIRED_MESSAGE } from '../tools/observation.ts';
import { createToolInputParser } from '../tools/tool-inputs.ts';
import { DiagnosisAgentOutputError, DiagnosisExecutionError, DiagnosisInputError } from './diagnosis-errors.ts';
import { type PreviousTurn, prepareDiagnosisInput } from './diagnosis-input.ts';
import { buildDiagnosisInstructions } from './diagnosis-prompt.ts';

export interface DiagnosisRequest {
  run: RunContext;
  query: string;
  previousTurn?: PreviousTurn | null;
}

export interface DiagnosisDeps {
  model: LanguageModel;
  evidence: EvidenceAdapters;
  audit?: AuditHook;
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
}

/** Tokens kept free for the final round's reasoning and Draft when deciding whether collection may go on. */
const FINAL_ROUND_TOKEN_RESERVE = 4_096;
/** Rough bytes per token of JSON observations, used only to estimate the next round's input. */
const OBSERVATION_BYTES_PER_TOKEN = 2;
/** setTimeout cannot wait longer; such deadlines are still checked before every round. */
const MAX_TIMER_MS = 2 ** 31 - 1;

const INSTRUCTIONS = buildDiagnosisInstructions();

/**
 * Runs the single Diagnosis Agent once: one `generateText` framework loop with the three evidence tools, wrapped by
 * the harness (a budget middleware on every model round, an interceptor on every tool call). No retry of the agent or
 * of any model call, ever. Input problems throw {@link DiagnosisInputError} before any model call; an invalid final
 * text throws {@link DiagnosisAgentOutputError}; anything else unclassified throws {@link DiagnosisExecutionError}.
 */
export async function runDiagnosis(request: DiagnosisRequest, deps: DiagnosisDeps): Promise<DiagnosisExecution> {
  const { run } = request;
  const ledger = runLedger(run);
  if (ledger.claimed) throw new DiagnosisExecutionError('INTERNAL', { cause: new Error('RunContext reused') });
  ledger.claimed = true;

  const input = prepareDiagnosisInput(request.query, request.previousTurn, run.limits);
  const remaining = run.deadlineAt - run.now();
  if (remaining <= 0 || remaining < run.limits.finalRoundReserveMs) {
    throw new DiagnosisInputError(
      'DEADLINE_TOO_SHORT',
      'too little time is left before the deadline for a model round',
    );
  }
  ledger.usage.inputBytes = input.bytes;

  const tracker = createProgressTracker();
  const collection = createCollectionState();
  const snapshot = () => tracker.snapshot(ledger.usage);
  if (run.signal?.aborted) return { draft: null, progress: snapshot(), stopReason: 'CANCELLED' };

  const lifecycle = createRunLifecycle(run);
  try {
    const model = wrapLanguageModel({
      model: deps.model as LanguageModelV4,
      middleware: createBudgetMiddleware({
        run,
        ledger,
        collection,
        runSignal: lifecycle.runSignal,
        audit: deps.audit,
      }),
    });
    const intercept = createToolInterceptor({
      run,
      ledger,
      tracker,
      collection,
      evidence: deps.evidence,
      audit: deps.audit,
      parseEnvelope: createToolInputParser(deps.evidence.query_mysql.catalog),
      collectionSignal: lifecycle.collectionSignal,
      abortRun: lifecycle.abort,
    });
    const result = await generateText({
      model,
      instructions: INSTRUCTIONS,
      prompt: input.text,
      tools: buildDiagnosisTools(deps.evidence.query_mysql.catalog, intercept),
      maxRetries: 0,
      toolCallConcurrency: 1,
      abortSignal: lifecycle.runSignal,
      stopWhen: [() => collection.finalRound, isStepCount(run.limits.maxModelCalls)],
      prepareStep: ({ messages }) => {
        decideSoftStops(run, ledger, collection);
        if (collection.stopReason === null) return {};
        collection.finalRound = true;
        return {
          activeTools: [],
          messages: [
            ...messages,
            {
              role: 'user',
              content: JSON.stringify({ evidence_status: 'STOP_REQUIRED', message: STOP_REQUIRED_MESSAGE }),
            },
          ],
        };
      },
      repairToolCall: async ({ toolCall, error }) =>
        InvalidToolInputError.isInstance(error)
          ? { ...toolCall, input: JSON.stringify({ [UNPARSEABLE_INPUT_MARKER]: true }) }
          : null,
      runtimeContext: { runId: run.runId, sessionId: run.sessionId },
      telemetry: {
        functionId: 'diagnosis_agent',
        recordInputs: false,
        recordOutputs: false,
        includeRuntimeContext: { runId: true, sessionId: true },
      },
    });

    const last = result.steps.at(-1);
    if (last === undefined || last.content.some((part) => part.type === 'tool-call')) {
      const reason: StopReason = collection.finalRound ? 'STOP_IGNORED' : 'MODEL_CALL_BUDGET';
      return { draft: null, progress: snapshot(), stopReason: reason };
    }
    const parsed = parseDiagnosisDraft(last.text, run.limits);
    if (!parsed.ok) {
      throw new DiagnosisAgentOutputError(parsed.code, tracker.hasReadyCheck() ? snapshot() : null);
    }
    ledger.usage.outputBytes = utf8Bytes(last.text);
    return { draft: parsed.draft, progress: snapshot(), stopReason: collection.stopReason };
  } catch (error) {
    return classifyFailure(error, lifecycle.runSignal, tracker, ledger);
  } finally {
    lifecycle.dispose();
  }
}

/** Collection ends before a round when only one model call is left, tokens run low, or the deadline nears. */
function decideSoftStops(run: RunContext, ledger: RunLedger, collection: CollectionState): void {
  const { limits } = run;
  const { usage } = ledger;
  if (usage.modelCalls >= limits.maxModelCalls - 1) stopCollection(collection, 'MODEL_CALL_BUDGET');
  const nextRoundEstimate =
    collection.lastRoundTokens +
    Math.ceil(collection.observationBytesSinceRound / OBSERVATION_BYTES_PER_TOKEN) +
    FINAL_ROUND_TOKEN_RESERVE;
  if (usage.totalTokens + nextRoundEstimate > limits.maxTotalTokens) stopCollection(collection, 'TOKEN_BUDGET');
  if (run.deadlineAt - run.now() < limits.finalRoundReserveMs) stopCollection(collection, 'DEADLINE');
}

function classifyFailure(
  error: unknown,
  runSignal: AbortSignal,
  tracker: ProgressTracker,
  ledger: RunLedger,
): DiagnosisExecution {
  if (error instanceof DiagnosisAgentOutputError) throw error;
  // NOTE: an abort reason set by the harness wins over whatever error the SDK surfaced while unwinding.
  const cause = runSignal.aborted ? runSignal.reason : error;
  if (cause instanceof HarnessStop) {
    return { draft: null, progress: tracker.snapshot(ledger.usage), stopReason: cause.reason };
  }
  if (cause instanceof AuditFailure) throw new DiagnosisExecutionError('AUDIT_FAILED', { cause });
  if (cause instanceof ModelCallFailure) throw new DiagnosisExecutionError('MODEL_FAILED', { cause: cause.cause });
  throw new DiagnosisExecutionError('INTERNAL', { cause });
}

/**
 * The run's signals: `runSignal` aborts at the deadline, on outside cancellation and on an audit failure;
 * `collectionSignal` also aborts when the final round's reserve begins, so a hanging adapter cannot eat it.
 */
function createRunLifecycle(run: RunContext) {
  const runController = new AbortController();
  const collectionController = new AbortController();
  const abort = (reason: unknown) => {
    if (!runController.signal.aborted) runController.abort(reason);
  };
  const timers: ReturnType<typeof setTimeout>[] = [];
  const schedule = (at: number, action: () => void) => {
    const delay = Math.max(0, at - run.now());
    if (delay <= MAX_TIMER_MS) timers.push(setTimeout(action, delay));
  };
  schedule(run.deadlineAt, () => abort(new HarnessStop('DEADLINE')));
  schedule(run.deadlineAt - run.limits.finalRoundReserveMs, () => collectionController.abort());
  const onCancel = () => abort(new HarnessStop('CANCELLED'));
  run.signal?.addEventListener('abort', onCancel, { once: true });
  return {
    runSignal: runController.signal,
    collectionSignal: AbortSignal.any([runController.signal, collectionController.signal]),
    abort,
    dispose() {
      for (const timer of timers) clearTimeout(timer);
      run.signal?.removeEventListener('abort', onCancel);
    },
  };
}
