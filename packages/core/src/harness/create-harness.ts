import type { JSONValue, LanguageModelV4 } from '@ai-sdk/provider';
import {
  InvalidToolInputError,
  isStepCount,
  type LanguageModel,
  type ModelMessage,
  type ToolCallRepairFunction,
  ToolChoiceViolationError,
  type ToolResultPart,
  type ToolSet,
  wrapLanguageModel,
} from 'ai';
import type { ProgressSnapshot } from '../run/progress.ts';
import type { RunContext } from '../run/run-context.ts';
import type { StopReason } from '../run/stop-reason.ts';
import { truncateChars } from '../run/utf8.ts';
import type { AuditHook } from '../store/audit-hook.ts';
import { buildDiagnosisTools, UNPARSEABLE_INPUT_MARKER } from '../tools/diagnosis-tools.ts';
import type { EvidenceAdapters } from '../tools/evidence-adapter.ts';
import { createMaskingSession, type MaskingSession } from '../tools/masking/masking-session.ts';
import { DEVELOPMENT_MASKING_SECRET } from '../tools/masking/pseudonym-keys.ts';
import { rejectedObservation, STOP_REQUIRED_MESSAGE } from '../tools/observation.ts';
import { parseToolCallId } from '../tools/tool-call-id.ts';
import { createToolInputParser } from '../tools/tool-inputs.ts';
import { createAuditMiddleware } from './audit-middleware.ts';
import { createBudgetMiddleware } from './budget-middleware.ts';
import { maxRounds, softStopBeforeRound } from './budget-policy.ts';
import { createCallRefs } from './call-refs.ts';
import { createCollectionState, stopCollection } from './collection-state.ts';
import { compactHistory } from './compact-history.ts';
import { AuditFailure, HarnessStop, ModelCallFailure } from './harness-signals.ts';
import { createProgressTracker } from './progress-tracker.ts';
import { createRequestTimeoutMiddleware } from './request-timeout-middleware.ts';
import { createRunLifecycle } from './run-lifecycle.ts';
import { createToolInterceptor } from './tool-interceptor.ts';

export interface HarnessOptions {
  run: RunContext;
  model: LanguageModel;
  evidence: EvidenceAdapters;
  audit?: AuditHook | undefined;
  /** Receives the run's progress after every model round and tool call, for readers while it runs. */
  onProgress?: ((progress: ProgressSnapshot) => void) | undefined;
  /**
   * Started with every model round's request and awaited before its answer is used (the service reads the run's
   * cancel flag there: in parallel with the request, not before it); it may abort the run's signal, never throw.
   */
  duringRound?: (() => Promise<void>) | undefined;
  /**
   * The run's masking session (the service builds it from the deployment's settings). Absent: identifiers masked
   * with the development key: masking is never off.
   */
  masking?: MaskingSession | undefined;
  /** The run's counter of stored pseudonym batches; absent: the harness counts from 1. */
  nextPseudonymBatch?: (() => number) | undefined;
}

/** How the harness classifies a failure of the loop: a stop with a reason, or a failure of the audit, the model or the harness itself. */
export type HarnessFailure =
  | { kind: 'stopped'; reason: StopReason }
  | { kind: 'audit'; cause: unknown }
  | { kind: 'model'; cause: unknown }
  | { kind: 'internal'; cause: unknown };

/**
 * Everything the single `generateText` loop needs to run inside the harness, built per run: the model wrapped by the
 * budget and audit middlewares, the three tools behind the interceptor, `stopWhen`/`prepareStep` that turn a soft
 * stop into one final round that may call no tool, with STOP_REQUIRED, the run's abort signal, and what the loop cannot know itself
 * (progress, the collection state, the classification of a failure). Call `dispose` when the run ends.
 */
export function createHarness(options: HarnessOptions) {
  const { run, evidence, audit } = options;
  const tracker = createProgressTracker();
  const collection = createCollectionState();
  const lifecycle = createRunLifecycle(run);
  // NOTE: when the reserve timer fires, collection is over, whatever the clock says a moment later: a timer may fire
  // a millisecond before `now()` reaches the same instant, and the next round must still be the final one.
  lifecycle.reserveSignal.addEventListener('abort', () => stopCollection(collection, 'DEADLINE'), { once: true });
  const catalog = evidence.query_mysql.catalog;
  const masking =
    options.masking ?? createMaskingSession({ mode: 'identifiers', secret: DEVELOPMENT_MASKING_SECRET }, run.runId);
  let batches = 0;
  const nextPseudonymBatch =
    options.nextPseudonymBatch ??
    (() => {
      batches += 1;
      return batches;
    });

  const notify =
    options.onProgress === undefined
      ? undefined
      : () => {
          try {
            options.onProgress?.(tracker.snapshot(run.ledger.usage));
          } catch {
            // NOTE: a progress listener never changes the run.
          }
        };
  const budget = createBudgetMiddleware({
    run,
    collection,
    runSignal: lifecycle.runSignal,
    ...(notify === undefined ? {} : { onRound: notify }),
    ...(options.duringRound === undefined ? {} : { duringRound: options.duringRound }),
  });
  // NOTE: outermost first: the budget decides whether a round may run, the audit records the rounds that answered,
  // and the request time limit sits directly around the provider, so a late answer reaches neither.
  const requestTimeout = createRequestTimeoutMiddleware({ run, runSignal: lifecycle.runSignal });
  const model = wrapLanguageModel({
    model: options.model as LanguageModelV4,
    middleware:
      audit === undefined ? [budget, requestTimeout] : [budget, createAuditMiddleware({ run, audit }), requestTimeout],
  });
  const callRefs = createCallRefs();
  const intercept = createToolInterceptor({
    run,
    callRefs,
    tracker,
    collection,
    evidence,
    audit,
    parseEnvelope: createToolInputParser(catalog),
    masking,
    nextPseudonymBatch,
    collectionSignal: lifecycle.collectionSignal,
    abortRun: lifecycle.abort,
    ...(notify === undefined ? {} : { onToolCall: notify }),
  });

  return {
    model,
    tools: buildDiagnosisTools(catalog, intercept, callRefs.refOf),
    /** The run's tool call ids by the number each observation showed (`ref`), the first call's first. */
    callIds: callRefs.ids,
    abortSignal: lifecycle.runSignal,
    stopWhen: [() => collection.finalRound, isStepCount(maxRounds(run))],
    /**
     * Before every round: a soft stop decided now makes this round the final one: the same tools, with
     * `toolChoice: 'none'` (NOTE: not `activeTools: []`: a request without the earlier rounds' tools starts a new
     * prompt prefix, and the run's largest request would get nothing from the provider's prompt cache), and
     * STOP_REQUIRED after the history. An answer that calls a tool anyway is refused by the SDK before any tool
     * runs (`ToolChoiceViolationError`) and ends the run STOP_IGNORED.
     */
    prepareStep: async ({ messages }: { messages: ModelMessage[] }) => {
      const softStop = softStopBeforeRound(run, collection);
      if (softStop !== null) stopCollection(collection, softStop);
      const sent = compactHistory(boundErrorResults(messages));
      if (collection.stopReason === null) return sent === messages ? {} : { messages: sent };
      collection.finalRound = true;
      return {
        toolChoice: 'none' as const,
        messages: [
          ...sent,
          {
            role: 'user' as const,
            content: JSON.stringify({ evidence_status: 'STOP_REQUIRED', message: STOP_REQUIRED_MESSAGE }),
          },
        ],
      };
    },
    /** Unparseable tool JSON reaches the interceptor as a marker it refuses as INVALID_INPUT, not as SDK text. */
    repairToolCall: (async ({ toolCall, error }) =>
      InvalidToolInputError.isInstance(error)
        ? { ...toolCall, input: JSON.stringify({ [UNPARSEABLE_INPUT_MARKER]: true }) }
        : null) satisfies ToolCallRepairFunction<ToolSet>,
    collection,
    progress: (): ProgressSnapshot => tracker.snapshot(run.ledger.usage),
    hasReadyCheck: () => tracker.hasReadyCheck(),
    /** NOTE: an abort reason set by the harness wins over whatever error the SDK surfaced while unwinding. */
    classify(error: unknown): HarnessFailure {
      const cause = lifecycle.runSignal.aborted ? lifecycle.runSignal.reason : error;
      if (cause instanceof HarnessStop) return { kind: 'stopped', reason: cause.reason };
      if (cause instanceof AuditFailure) return { kind: 'audit', cause };
      if (cause instanceof ModelCallFailure) return { kind: 'model', cause: cause.cause };
      // NOTE: the final round forbids tool calls (`toolChoice: 'none'`); the SDK refuses an answer that makes one
      // anyway before running it: the model ignored STOP_REQUIRED.
      if (collection.finalRound && ToolChoiceViolationError.isInstance(cause))
        return { kind: 'stopped', reason: 'STOP_IGNORED' };
      return { kind: 'internal', cause };
    },
    dispose: lifecycle.dispose,
  };
}

export type Harness = ReturnType<typeof createHarness>;

/**
 * The conversation as the model may see it. NOTE: a call the tool boundary never saw (a tool that does not exist)
 * is answered by the SDK itself with its exception text, which echoes the model's chosen name unbounded; every such
 * error result is replaced by a fixed, bounded REJECTED observation (UNKNOWN_TOOL). Returns the same array when
 * there is nothing to replace.
 */
function boundErrorResults(messages: ModelMessage[]): ModelMessage[] {
  let changed = false;
  const bounded = messages.map((message) => {
    if (message.role !== 'tool') return message;
    const content = message.content.map((part) => {
      if (part.type !== 'tool-result' || (part.output.type !== 'error-text' && part.output.type !== 'error-json')) {
        return part;
      }
      changed = true;
      // NOTE: the id is the model's, like any other: the same check and cut as at the tool boundary.
      const toolCallId = parseToolCallId(part.toolCallId).id;
      return {
        ...part,
        toolName: truncateChars(part.toolName, 64),
        output: {
          type: 'json' as const,
          value: JSON.parse(JSON.stringify(rejectedObservation(toolCallId, 'UNKNOWN_TOOL'))) as JSONValue,
        },
      } satisfies ToolResultPart;
    });
    return { ...message, content };
  });
  return changed ? bounded : messages;
}
