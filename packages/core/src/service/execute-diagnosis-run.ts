// NOTE: over 300 lines on purpose: one use case, a diagnosis run from its claim to its close; its steps share the run's
// context and stores.
import { setMaxListeners } from 'node:events';
import type { LanguageModel } from 'ai';
import {
  assertTimeForARound,
  composeDiagnosisInput,
  type PreviousTurn,
  validateQuery,
} from '../agent/diagnosis-input.ts';
import { runDiagnosis } from '../agent/run-diagnosis.ts';
import { RunStoreError } from '../errors.ts';
import type { DiagnosisResult } from '../release/diagnosis-result.ts';
import { verifyExecutionEvidence } from '../release/evidence-guard.ts';
import { failed, type ReleaseDecision, releaseDiagnosis } from '../release/release-diagnosis.ts';
import { reviewDraftSemantics, type SemanticGuardConfig } from '../release/semantic-guard.ts';
import type { ProcessScorecard } from '../run/process-scores.ts';
import { createRunContext } from '../run/run-context.ts';
import { buildRunLimits, type RunLimits } from '../run/run-limits.ts';
import type { DiagnosisRunRequest } from '../run/run-request.ts';
import type { AuditWriter, RunWriteBudget } from '../store/audit-writer.ts';
import type { RunOutcome, RunStore, StoredPseudonymBatch } from '../store/run-store.ts';
import type { EvidenceAdapters } from '../tools/evidence-adapter.ts';
import { createMaskingSession, type MaskingConfig, type RecordedReplay } from '../tools/masking/masking-session.ts';
import { DEVELOPMENT_MASKING_SECRET } from '../tools/masking/pseudonym-keys.ts';
import { openPseudonymBatches, sealNewPseudonyms } from '../tools/masking/pseudonym-map.ts';
import { auditFailureFields, retriedWriteFields } from './audit-failure-fields.ts';
import { buildPreviousTurn } from './build-previous-turn.ts';
import { watchCancellation } from './cancel-watch.ts';
import { assertRequestIds, type Checked, sameRequest } from './checked-run-request.ts';
import { closeRun } from './close-run.ts';
import { startHeartbeat } from './heartbeat.ts';
import { createObservationRecorder } from './observation-recorder.ts';
import { createProcessRecorder } from './process-recorder.ts';
import { createProgressPublisher } from './progress-publisher.ts';
import { readPreviousMap, rekeyPreviousRun } from './rekey-previous-run.ts';
import { takeRun } from './take-run.ts';

/** One request to diagnose, as the handler hands it over after validating the event. */
export interface DiagnoseCommand extends DiagnosisRunRequest {
  /** Milliseconds the invocation has left (the Lambda context's remaining time). */
  remainingMs: number;
  signal?: AbortSignal;
  /**
   * The workflow execution this invocation belongs to (`$states.context.Execution.Id`), absent for a local run. A
   * QUEUED run is taken only by the execution that owns it; a run this invocation starts is owned by it.
   */
  executionArn?: string | undefined;
}

export interface DiagnosisServiceDeps {
  model: LanguageModel;
  evidence: EvidenceAdapters;
  /**
   * The run store and audit writer for this invocation: the writer's write-behind queue belongs to one run, and its
   * retries end with the run's `writeBudget` (see {@link RunWriteBudget}).
   */
  createStore: (budget?: RunWriteBudget) => RunStore & AuditWriter;
  limits?: Partial<RunLimits>;
  /** The deployment's IANA time zone, in which the model reads the run's start time (default Asia/Shanghai). */
  timeZone?: string;
  /**
   * The SemanticGuard: its mode and the judge's own model. Absent: no judge (the composition root in `functions/`
   * always passes it, from SEMANTIC_GUARD, whose default is `enforce`).
   */
  semanticGuard?: SemanticGuardConfig;
  /** Time kept after the run's deadline to flush the audit and complete the run. */
  flushReserveMs: number;
  /** How often a running invocation writes its heartbeat (default every 30 s; progress writes count too). */
  heartbeatMs?: number;
  now?: () => number;
  /** Structured log sink; gets ids, statuses, codes and counters — never the query, texts or evidence. */
  log?: (entry: Record<string, unknown>) => void;
  /** How often a running invocation reads its cancel flag (default every 2 s). */
  cancelPollMs?: number;
  /** The least time between two live-progress writes (default 1 s). */
  progressWriteMs?: number;
  /**
   * How observations are masked before the model, the judge, the audit or a log sees them (MASKING, the masking
   * secret, the stage's patterns). Absent: identifiers masked with the public development key (local runs, tests).
   */
  masking?: MaskingConfig;
  /**
   * The run replays a captured recording (issue 24): the recording's pseudonyms are valid tool arguments and reach
   * the (recorded) adapters verbatim. NOTE: a composition-time option of the eval's wiring only
   * (`DiagnoseFunctionOptions.recordedReplay`): no setting, event field, API or trigger can set it, so no deployed run
   * can pass a pseudonym unresolved to a real source.
   */
  replay?: RecordedReplay;
  /**
   * Called once when a run this invocation ran has ended (never for a replay), with its stored process scorecard:
   * metrics. Must not throw.
   */
  onRunFinished?: (result: DiagnosisResult, durationMs: number, scorecard: ProcessScorecard) => void;
}

/**
 * The application stage around the agent, for a caller inside this process (the CLI's local runtime, the bench,
 * tests): checks the request's ids (INVALID_IDENTIFIER), then {@link executeCheckedDiagnosisRun}.
 */
export async function executeDiagnosisRun(
  command: DiagnoseCommand,
  deps: DiagnosisServiceDeps,
): Promise<DiagnosisResult> {
  return executeCheckedDiagnosisRun(assertRequestIds(command), deps);
}

/**
 * The application stage around the agent, for a command whose ids were checked at its boundary (the Diagnose
 * function's `parseWorkflowRequest`): validate the input (before anything is written), `takeRun` (idempotent: a
 * replayed runId answers with the stored outcome and no model call), `findPreviousRun` and `buildPreviousTurn` when
 * the session continues, `runDiagnosis`, the SemanticGuard's judge (on a Draft that passes the EvidenceGuard), the
 * release policy (EvidenceGuard, then the judge's verdicts), `flush` of the audit, `completeRun`.
 * The audit is flushed before the run is completed, so a failed audit write can still make the run FAILED.
 */
export async function executeCheckedDiagnosisRun(
  command: Checked<DiagnoseCommand>,
  deps: DiagnosisServiceDeps,
): Promise<DiagnosisResult> {
  const now = deps.now ?? Date.now;
  const startedAt = now();
  const deadlineAt = startedAt + command.remainingMs - deps.flushReserveMs;
  // NOTE: the run stops on the caller's signal or on a cancel request seen in the store (watched while it runs).
  const cancellation = new AbortController();
  const limits = buildRunLimits(deps.limits);
  const signal =
    command.signal === undefined ? cancellation.signal : AbortSignal.any([command.signal, cancellation.signal]);
  // Everything the caller sent is checked here, once, before anything is written.
  const query = validateQuery(command.query, limits);
  // NOTE: the audit's writes (and their retries) may use the invocation's time until half the flush reserve is left;
  // the other half is the completion's. A real-time timer: the run's clock may be a scenario's own (the eval).
  const writeBudget = AbortSignal.timeout(Math.max(0, Math.floor(command.remainingMs - deps.flushReserveMs / 2)));
  const callBudget = AbortSignal.timeout(Math.max(0, Math.floor(command.remainingMs - deps.flushReserveMs / 4)));
  // NOTE: each request on the wire listens to them (16 audit writes, their waits, the run's own reads and writes).
  setMaxListeners(0, writeBudget, callBudget);
  const store = deps.createStore({ writeBudget, callBudget });
  try {
    assertTimeForARound(limits, deadlineAt - startedAt);
  } catch (error) {
    // NOTE: a run the asynchronous API queued would otherwise wait forever: it is closed as FAILED with this code.
    const stored = await store.getRun(command.runId);
    if (stored?.status === 'QUEUED' && sameRequest(stored, command, { window: 'stored' })) {
      const owner = command.executionArn ?? null;
      await closeRun(store, stored, { errorCode: 'DEADLINE_TOO_SHORT' }, { claimAt: deadlineAt, owner, ownRun: true });
    }
    throw error;
  }

  // NOTE: the session's previous run is read while the run is taken, not after: one round trip fewer before the
  // first model request. Only a published run is ever selected (never this one), and the read is used only if this
  // invocation takes the run; a replay or a refusal drops it (`catch`: its failure then concerns no one).
  const previousRun = command.continueSession ? store.findPreviousRun(command.enterpriseId, command.sessionId) : null;
  previousRun?.catch(() => undefined);
  const taken = await takeRun(store, command, {
    deadlineAt,
    abandonment: { flushReserveMs: deps.flushReserveMs },
    now,
    log: deps.log,
  });
  if (taken.replay !== undefined) return taken.replay;
  // NOTE: the window is the stored run's (a trigger or the caller set it when the run was queued), never the payload's.
  const run = createRunContext({
    runId: command.runId,
    sessionId: command.sessionId,
    enterpriseId: command.enterpriseId,
    deadlineAt,
    limits,
    ...(deps.timeZone === undefined ? {} : { timeZone: deps.timeZone }),
    ...(taken.run.window === null ? {} : { window: taken.run.window }),
    ...(taken.run.trigger === null ? {} : { symptomAt: taken.run.trigger.startedAt }),
    now,
    startedAt,
    signal,
  });

  const watch = watchCancellation(store, command.runId, deps.cancelPollMs, { justClaimed: true });
  watch.signal.addEventListener('abort', () => cancellation.abort(), { once: true });
  const heartbeat = startHeartbeat(store, command.runId, deps.heartbeatMs);
  const progress = createProgressPublisher(store, run, deps.progressWriteMs);

  // NOTE: from the claim on, everything is inside the try: whatever fails, the watch stops and the run is completed.
  let previousTurn: PreviousTurn | null = null;
  let decision: ReleaseDecision;
  const maskingConfig = deps.masking ?? { mode: 'identifiers', secret: DEVELOPMENT_MASKING_SECRET };
  const masking = createMaskingSession(maskingConfig, command.runId, deps.replay);
  let pseudonymBatches = 0;
  const nextPseudonymBatch = () => {
    pseudonymBatches += 1;
    return pseudonymBatches;
  };
  // NOTE: every audit event of the run (the agent's and the judge's) passes it, so the run's process scorecard is
  // computed from exactly what was audited.
  const processAudit = createProcessRecorder(store);
  const recorder = createObservationRecorder(processAudit.hook);
  try {
    // NOTE: a triggered run's question was masked by its trigger with this run's key, its values sealed as the map's
    // first batches: taken in, so the model may pass them to a tool, and this run's batches numbered after them.
    // NOTE: both maps are read together (one round trip before the first model request), then used in order: this
    // run's own batches restored before the previous run's texts are masked again with this run's key.
    const previous = await (previousRun ?? Promise.resolve(null));
    const [ownBatches, previousMap] = await Promise.all([
      taken.run.trigger === null ? null : readOwnMap(store, command.runId),
      readPreviousMap(previous, store, maskingConfig.secret),
    ]);
    if (ownBatches !== null) {
      masking.restoreEntries(openPseudonymBatches(maskingConfig.secret, command.runId, ownBatches));
      pseudonymBatches = ownBatches.reduce((highest, batch) => Math.max(highest, batch.sequence), 0);
      masking.markShown(query);
    }
    previousTurn = command.continueSession
      ? buildPreviousTurn(rekeyPreviousRun(previous, previousMap, masking), run.limits)
      : null;
    const input = composeDiagnosisInput(query, previousTurn, run);
    // The previous turn's pseudonyms are this run's now: shown to the model, and stored before it sees them.
    if (previousTurn !== null) masking.markShown(JSON.stringify(previousTurn));
    for (const batch of sealNewPseudonyms(masking, command, nextPseudonymBatch)) await store.onPseudonyms?.(batch);
    const execution = await runDiagnosis(
      { run, input },
      {
        model: deps.model,
        evidence: deps.evidence,
        audit: recorder.hook,
        onProgress: progress.publish,
        duringRound: watch.checkNow,
        masking,
        nextPseudonymBatch,
      },
    );
    const evidenceGuard = verifyExecutionEvidence(execution, recorder.pastIncidentCitations(), recorder.changeChecks());
    const semantic =
      deps.semanticGuard === undefined
        ? null
        : await reviewDraftSemantics(
            { run, query, execution, evidenceGuard, observations: recorder.citableObservations() },
            deps.semanticGuard,
            processAudit.hook,
          );
    if (semantic?.outcome === 'FAILED' && semantic.failure === 'AUDIT_FAILED') {
      // NOTE: the judge's unaudited call fails the run in the release (every mode); its cause is logged here, once.
      deps.log?.({
        message: 'audit failed',
        runId: command.runId,
        stage: 'judge',
        ...auditFailureFields(semantic.auditError),
      });
    }
    const seenBefore = recorder.seenBefore();
    const changeChecks = recorder.changeChecks();
    decision = releaseDiagnosis({ execution, evidenceGuard, usage: run.usage(), semantic, seenBefore, changeChecks });
  } catch (error) {
    decision = releaseDiagnosis({ error, usage: run.usage() });
    if (decision.outcome.errorCode === 'AUDIT_FAILED') {
      deps.log?.({ message: 'audit failed', runId: command.runId, stage: 'run', ...auditFailureFields(error) });
    }
  } finally {
    watch.stop();
    heartbeat.stop();
    await progress.drain();
  }
  try {
    const flushed = await store.flush();
    if (flushed.retriedWrites.length > 0) {
      deps.log?.({ message: 'audit writes retried', runId: command.runId, ...retriedWriteFields(flushed) });
    }
  } catch (error) {
    // NOTE: the writer has already tried every transient failure again (`putAuditItem`); what is left is logged by
    // cause (classes, item kinds, AWS error codes), never by value, and fails the run: an unaudited run never succeeds.
    deps.log?.({ message: 'audit failed', runId: command.runId, stage: 'flush', ...auditFailureFields(error) });
    decision = failed(run.usage(), 'AUDIT_FAILED', decision.outcome.progress);
  }
  const completed = await completeOrClose(
    store,
    command.runId,
    decision,
    { limits: run.limits, deadlineAt, masking: masking.mode, services: recorder.services() },
    (outcome) =>
      processAudit.scorecard({ ...outcome, limits: run.limits, deadlineAt: new Date(deadlineAt).toISOString() }),
  );
  decision = completed.decision;
  deps.log?.({
    message: 'diagnosis finished',
    runId: command.runId,
    sessionId: command.sessionId,
    enterpriseId: command.enterpriseId,
    status: decision.status,
    stopReason: decision.outcome.stopReason,
    collectionStopReason: decision.outcome.collectionStopReason ?? null,
    errorCode: decision.outcome.errorCode,
    usage: decision.outcome.usage,
    continued: previousTurn !== null,
  });
  const result: DiagnosisResult = {
    runId: command.runId,
    status: decision.status,
    report: decision.report,
    stopReason: decision.outcome.stopReason,
    ...(decision.outcome.collectionStopReason == null
      ? {}
      : { collectionStopReason: decision.outcome.collectionStopReason }),
    progress: decision.outcome.progress,
    usage: decision.outcome.usage,
  };
  deps.onRunFinished?.(result, now() - startedAt, completed.scorecard);
  return result;
}

/** The most batches of a triggered run's own map read at its start (its trigger writes one). */
const MAX_OWN_MAP_BATCHES = 20;

/**
 * The run's map as its trigger wrote it, read; the run opens it and takes it into its session. NOTE: a map that does
 * not open (another secret, altered) fails the run (`openPseudonymBatches` throws): its question's pseudonyms could not
 * be restored, and a batch this run wrote at a sequence already taken would overwrite the trigger's.
 */
async function readOwnMap(store: Pick<RunStore, 'listPseudonyms'>, runId: string): Promise<StoredPseudonymBatch[]> {
  const batches: StoredPseudonymBatch[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.listPseudonyms(runId, { limit: MAX_OWN_MAP_BATCHES, ...(cursor ? { cursor } : {}) });
    batches.push(...page.records);
    cursor = page.cursor ?? undefined;
  } while (cursor !== undefined && batches.length < MAX_OWN_MAP_BATCHES);
  return batches;
}

/**
 * Completes the run with its decision. NOTE: a run must never stay RUNNING because its outcome could not be stored
 * (too large, refused by the table): then it is closed as FAILED with a stable code in a minimal item, and the
 * caller gets that answer. Only when even that fails (the table is unreachable) does the error propagate.
 */
async function completeOrClose(
  store: RunStore,
  runId: string,
  decision: ReleaseDecision,
  extra: Pick<RunOutcome, 'limits' | 'deadlineAt' | 'masking' | 'services'>,
  scorecardOf: (outcome: RunOutcome) => ProcessScorecard,
): Promise<{ decision: ReleaseDecision; scorecard: ProcessScorecard }> {
  // NOTE: the scorecard is computed for the outcome actually stored, so the stored one is the one recomputed later.
  const scorecard = scorecardOf(decision.outcome);
  try {
    await store.completeRun(runId, { ...decision.outcome, ...extra, processScorecard: scorecard });
    return { decision, scorecard };
  } catch (error) {
    if (error instanceof RunStoreError && error.code === 'RUN_NOT_RUNNING') throw error;
    const code =
      error instanceof RunStoreError && error.code === 'RUN_ITEM_TOO_LARGE' ? error.code : 'COMPLETION_FAILED';
    const closed = failed(decision.outcome.usage, code);
    const closedScorecard = scorecardOf(closed.outcome);
    const details = { ...extra, processScorecard: closedScorecard };
    await closeRun(store, { runId, status: 'RUNNING' }, { decision: closed, details }, { ownRun: true });
    return { decision: closed, scorecard: closedScorecard };
  }
}
