import type { LanguageModel } from 'ai';
import { composeDiagnosisInput, type PreviousTurn, validateQuery } from '../agent/diagnosis-input.ts';
import { runDiagnosis } from '../agent/run-diagnosis.ts';
import {
  DiagnosisInputError,
  DiagnosisRunConflictError,
  DiagnosisRunIdConflictError,
  RunStoreError,
} from '../errors.ts';
import { tooLittleTimeForARound } from '../harness/budget-policy.ts';
import type { DiagnosisResult } from '../release/diagnosis-result.ts';
import { verifyExecutionEvidence } from '../release/evidence-guard.ts';
import { failed, type ReleaseDecision, releaseDiagnosis } from '../release/release-diagnosis.ts';
import { resultOfStoredRun } from '../release/result-of-stored-run.ts';
import { reviewDraftSemantics, type SemanticGuardConfig } from '../release/semantic-guard.ts';
import { isEnterpriseId, isRunId, isSessionId } from '../run/ids.ts';
import { sameIncidentWindow } from '../run/incident-window.ts';
import type { ProcessScorecard } from '../run/process-scores.ts';
import { createRunContext, emptyRunUsage } from '../run/run-context.ts';
import { buildRunLimits, type RunLimits } from '../run/run-limits.ts';
import type { DiagnosisRunRequest } from '../run/run-request.ts';
import type { AuditHook } from '../store/audit-hook.ts';
import type { RunOutcome, RunStore, StoredRun } from '../store/run-store.ts';
import type { EvidenceAdapters } from '../tools/evidence-adapter.ts';
import { createMaskingSession, type MaskingConfig } from '../tools/masking/masking-session.ts';
import { DEVELOPMENT_MASKING_SECRET } from '../tools/masking/pseudonym-keys.ts';
import { sealNewPseudonyms } from '../tools/masking/pseudonym-map.ts';
import { closeAbandonedRun, isAbandoned } from './abandonment.ts';
import { watchCancellation } from './cancel-watch.ts';
import { startHeartbeat } from './heartbeat.ts';
import { createObservationRecorder } from './observation-recorder.ts';
import { buildPreviousTurn } from './previous-turn.ts';
import { createProcessRecorder } from './process-recorder.ts';
import { createProgressPublisher } from './progress-publisher.ts';
import { rekeyPreviousRun } from './rekey-previous-run.ts';

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
  /** A store for this invocation: its write-behind queue belongs to one run. */
  createStore: () => AuditHook & RunStore;
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
   * Called once when a run this invocation ran has ended (never for a replay), with its stored process scorecard:
   * metrics. Must not throw.
   */
  onRunFinished?: (result: DiagnosisResult, durationMs: number, scorecard: ProcessScorecard) => void;
}

/**
 * The application stage around the agent: validate the input (before anything is written), `startRun`
 * (idempotent: a replayed runId answers with the stored outcome and no model call), `findPreviousRun` and
 * `buildPreviousTurn` when the session continues, `runDiagnosis`, the EvidenceGuard (once), the SemanticGuard's judge
 * (on a Draft that passed it), the release policy (the guard's result, then the judge's verdicts), `flush` of the
 * audit, `completeRun`.
 * The audit is flushed before the run is completed, so a failed audit write can still make the run FAILED.
 */
export async function executeDiagnosisRun(
  command: DiagnoseCommand,
  deps: DiagnosisServiceDeps,
): Promise<DiagnosisResult> {
  const now = deps.now ?? Date.now;
  const startedAt = now();
  const deadlineAt = startedAt + command.remainingMs - deps.flushReserveMs;
  // NOTE: the handlers check the ids already; the service checks again because it is the last stop before storage.
  assertRequestIds(command);
  // NOTE: the run stops on the caller's signal or on a cancel request seen in the store (watched while it runs).
  const cancellation = new AbortController();
  const limits = buildRunLimits(deps.limits);
  const signal =
    command.signal === undefined ? cancellation.signal : AbortSignal.any([command.signal, cancellation.signal]);
  // Everything the caller sent is checked here, once, before anything is written.
  const query = validateQuery(command.query, limits);
  const store = deps.createStore();
  // NOTE: the execution that owns the run; a local run has none (null: it may only take runs that have none either).
  const owner = command.executionArn ?? null;
  if (tooLittleTimeForARound(limits, deadlineAt - startedAt)) {
    // NOTE: a run the asynchronous API queued would otherwise wait forever: it is closed as FAILED with this code.
    await closeQueuedRun(store, command, deadlineAt, failed(emptyRunUsage(), 'DEADLINE_TOO_SHORT'));
    throw new DiagnosisInputError('DEADLINE_TOO_SHORT', 'too little time is left in the invocation for a model round');
  }

  const start = await store.startRun(
    {
      runId: command.runId,
      sessionId: command.sessionId,
      enterpriseId: command.enterpriseId,
      query: command.query,
      continueSession: command.continueSession,
      ...(command.window === undefined ? {} : { window: command.window }),
    },
    { deadlineAt, ...(command.executionArn === undefined ? {} : { executionArn: command.executionArn }) },
  );
  let taken = start.run;
  if (!start.started) {
    if (!sameRequest(start.run, command, { window: 'stored' })) throw new DiagnosisRunIdConflictError();
    // A run queued by the asynchronous API is taken by exactly one invocation of the execution that owns it; a
    // cancelled one never starts.
    const claimed =
      start.run.status === 'QUEUED' ? await store.claimQueuedRun(command.runId, deadlineAt, { owner }) : null;
    if (claimed === null) {
      const current = start.run.status === 'QUEUED' ? await store.getRun(command.runId) : start.run;
      // NOTE: a QUEUED run of another execution (a stray or duplicate start naming this run) is never taken.
      if (current?.status === 'QUEUED') throw new DiagnosisRunConflictError();
      return answerReplay(current ?? start.run, store, deps, now);
    }
    taken = claimed;
  }
  // NOTE: the window is the stored run's (a trigger or the caller set it when the run was queued), never the payload's.
  const run = createRunContext({
    runId: command.runId,
    sessionId: command.sessionId,
    enterpriseId: command.enterpriseId,
    deadlineAt,
    limits,
    ...(deps.timeZone === undefined ? {} : { timeZone: deps.timeZone }),
    ...(taken.window === null ? {} : { window: taken.window }),
    now,
    startedAt,
    signal,
  });

  const watch = watchCancellation(store, command.runId, deps.cancelPollMs);
  watch.signal.addEventListener('abort', () => cancellation.abort(), { once: true });
  const heartbeat = startHeartbeat(store, command.runId, deps.heartbeatMs);
  const progress = createProgressPublisher(store, run, deps.progressWriteMs);

  // NOTE: from the claim on, everything is inside the try: whatever fails, the watch stops and the run is completed.
  let previousTurn: PreviousTurn | null = null;
  let decision: ReleaseDecision;
  const maskingConfig = deps.masking ?? { mode: 'identifiers', secret: DEVELOPMENT_MASKING_SECRET };
  const masking = createMaskingSession(maskingConfig, command.runId);
  let pseudonymBatches = 0;
  const nextPseudonymBatch = () => {
    pseudonymBatches += 1;
    return pseudonymBatches;
  };
  // NOTE: every audit event of the run (the agent's and the judge's) passes it, so the run's process scorecard is
  // computed from exactly what was audited.
  const processAudit = createProcessRecorder(store);
  try {
    previousTurn = command.continueSession
      ? buildPreviousTurn(
          await rekeyPreviousRun(
            await store.findPreviousRun(command.enterpriseId, command.sessionId),
            store,
            masking,
            maskingConfig.secret,
          ),
          run.limits,
        )
      : null;
    const input = composeDiagnosisInput(query, previousTurn, run);
    // The previous turn's pseudonyms are this run's now: shown to the model, and stored before it sees them.
    if (previousTurn !== null) masking.markShown(JSON.stringify(previousTurn));
    for (const batch of sealNewPseudonyms(masking, command, nextPseudonymBatch)) await store.onPseudonyms?.(batch);
    const recorder = createObservationRecorder(processAudit.hook);
    const execution = await runDiagnosis(
      { run, input },
      {
        model: deps.model,
        evidence: deps.evidence,
        audit: recorder.hook,
        onProgress: progress.publish,
        beforeRound: watch.checkNow,
        masking,
        nextPseudonymBatch,
      },
    );
    const evidenceGuard = verifyExecutionEvidence(execution);
    const semantic =
      deps.semanticGuard === undefined
        ? null
        : await reviewDraftSemantics(
            { run, query, execution, evidenceGuard, observations: recorder.observations },
            deps.semanticGuard,
            processAudit.hook,
          );
    decision = releaseDiagnosis({ execution, evidenceGuard, usage: run.usage(), semantic });
  } catch (error) {
    decision = releaseDiagnosis({ error, usage: run.usage() });
  } finally {
    watch.stop();
    heartbeat.stop();
    await progress.drain();
  }
  try {
    await store.flush();
  } catch {
    decision = failed(run.usage(), 'AUDIT_FAILED', decision.outcome.progress);
  }
  const completed = await completeOrClose(
    store,
    command.runId,
    decision,
    { limits: run.limits, deadlineAt, masking: masking.mode },
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

/** Closes the QUEUED run of exactly this request (if there is one) with `decision`; anything else is left alone. */
async function closeQueuedRun(
  store: RunStore,
  command: DiagnoseCommand,
  deadlineAt: number,
  decision: ReleaseDecision,
): Promise<void> {
  const stored = await store.getRun(command.runId);
  if (stored === null || stored.status !== 'QUEUED' || !sameRequest(stored, command, { window: 'stored' })) return;
  const owner = command.executionArn ?? null;
  if ((await store.claimQueuedRun(command.runId, deadlineAt, { owner })) === null) return;
  await store.completeRun(command.runId, decision.outcome);
}

/** Refuses a request whose run, session or enterprise id is not one this service may store (INVALID_IDENTIFIER). */
export function assertRequestIds(request: Pick<DiagnosisRunRequest, 'runId' | 'sessionId' | 'enterpriseId'>): void {
  if (!isRunId(request.runId) || !isSessionId(request.sessionId) || !isEnterpriseId(request.enterpriseId)) {
    throw new DiagnosisInputError('INVALID_IDENTIFIER', 'the run, session or enterprise id is not valid');
  }
}

/**
 * Exact comparison of the stored request with the replayed one: every field, byte for byte. The window too, unless
 * `window: 'stored'` and the replay names none: the workflow's payload never carries it (the stored run's is used).
 */
export function sameRequest(
  stored: StoredRun,
  command: DiagnosisRunRequest,
  options: { window: 'strict' | 'stored' } = { window: 'strict' },
): boolean {
  const windowMatches =
    options.window === 'stored' && command.window === undefined
      ? true
      : sameIncidentWindow(stored.window, command.window);
  return (
    stored.enterpriseId === command.enterpriseId &&
    stored.sessionId === command.sessionId &&
    stored.query === command.query &&
    stored.continueSession === command.continueSession &&
    windowMatches
  );
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
  extra: Pick<RunOutcome, 'limits' | 'deadlineAt' | 'masking'>,
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
    await store.completeRun(runId, { ...closed.outcome, ...extra, processScorecard: closedScorecard });
    return { decision: closed, scorecard: closedScorecard };
  }
}

async function answerReplay(
  stored: StoredRun,
  store: RunStore,
  deps: DiagnosisServiceDeps,
  now: () => number,
): Promise<DiagnosisResult> {
  if (stored.status !== 'RUNNING') {
    deps.log?.({ message: 'diagnosis replayed', runId: stored.runId, status: stored.status });
    return resultOfStoredRun(stored);
  }
  // NOTE: the one abandonment rule (see `abandonment.ts`): only a run no invocation can still be working on is closed.
  if (!isAbandoned(stored, now(), { flushReserveMs: deps.flushReserveMs })) throw new DiagnosisRunConflictError();
  if (!(await closeAbandonedRun(store, stored, now()))) {
    const current = await store.getRun(stored.runId);
    if (current !== null && current.status !== 'RUNNING') return resultOfStoredRun(current);
    throw new DiagnosisRunConflictError();
  }
  deps.log?.({ message: 'abandoned run closed', runId: stored.runId });
  const closed = await store.getRun(stored.runId);
  if (closed === null) throw new DiagnosisRunConflictError();
  return resultOfStoredRun(closed);
}
