import { DiagnosisRunConflictError, DiagnosisRunIdConflictError } from '../errors.ts';
import type { DiagnosisResult } from '../release/diagnosis-result.ts';
import { resultOfStoredRun } from '../release/result-of-stored-run.ts';
import type { RunStore, StoredRun } from '../store/run-store.ts';
import { type AbandonmentRule, closeAbandonedRun, isAbandoned } from './abandonment.ts';
import { type CheckedWorkflowRequest, sameRequest } from './checked-run-request.ts';

/** The run this invocation runs now, or the answer to a replay of a runId that is not this invocation's to run. */
export type TakenRun = { run: StoredRun; replay?: never } | { replay: DiagnosisResult; run?: never };

export interface TakeRunOptions {
  /** The run's deadline (epoch ms), stored on the run this invocation starts or takes. */
  deadlineAt: number;
  /** The abandonment rule a RUNNING replay is judged by. */
  abandonment: AbandonmentRule;
  now: () => number;
  log?: ((entry: Record<string, unknown>) => void) | undefined;
}

/**
 * The replay rules: a new runId starts a RUNNING run (owned by this invocation's execution, if any). An existing one
 * must carry exactly the same request (else RUN_ID_CONFLICT); a QUEUED one is taken by exactly one invocation of the
 * execution that owns it (a QUEUED run of another execution — a stray or duplicate start naming it — is never taken:
 * RUN_CONFLICT), and a cancelled one never starts. Anything else is a replay: an ended run answers with its stored
 * outcome and no model call; a RUNNING one is closed if the abandonment rule says no invocation can still be working
 * on it, and is RUN_CONFLICT otherwise.
 */
export async function takeRun(
  store: RunStore,
  request: CheckedWorkflowRequest,
  options: TakeRunOptions,
): Promise<TakenRun> {
  const { deadlineAt } = options;
  // NOTE: a run the API or a trigger started was queued before its workflow execution began, so it is claimed first,
  // on the same conditions the path below checks one by one (QUEUED, no cancel asked for, this execution's or no
  // one's, exactly this request): one conditional write instead of a refused start and then the claim. Anything else
  // (a new run, a replay, another request, a window to compare) takes the path below; a batch item's run, which its
  // own execution starts, pays that one refused claim first.
  if (request.executionArn !== undefined && request.window === undefined) {
    const claimed = await store.claimQueuedRun(request.runId, deadlineAt, {
      owner: request.executionArn,
      request: {
        enterpriseId: request.enterpriseId,
        sessionId: request.sessionId,
        query: request.query,
        continueSession: request.continueSession,
      },
    });
    if (claimed !== null) return { run: claimed };
  }
  const start = await store.startRun(
    {
      runId: request.runId,
      sessionId: request.sessionId,
      enterpriseId: request.enterpriseId,
      query: request.query,
      continueSession: request.continueSession,
      ...(request.window === undefined ? {} : { window: request.window }),
    },
    { deadlineAt, ...(request.executionArn === undefined ? {} : { executionArn: request.executionArn }) },
  );
  if (start.started) return { run: start.run };
  if (!sameRequest(start.run, request, { window: 'stored' })) throw new DiagnosisRunIdConflictError();
  // NOTE: the execution that owns the run; a local run has none (null: it may only take runs that have none either).
  const owner = request.executionArn ?? null;
  const claimed =
    start.run.status === 'QUEUED' ? await store.claimQueuedRun(request.runId, deadlineAt, { owner }) : null;
  if (claimed !== null) return { run: claimed };
  const current = start.run.status === 'QUEUED' ? await store.getRun(request.runId) : start.run;
  if (current?.status === 'QUEUED') throw new DiagnosisRunConflictError();
  return { replay: await answerReplay(current ?? start.run, store, options) };
}

async function answerReplay(
  stored: StoredRun,
  store: Pick<RunStore, 'getRun' | 'claimQueuedRun' | 'completeRun' | 'listRunRecords'>,
  options: TakeRunOptions,
): Promise<DiagnosisResult> {
  if (stored.status !== 'RUNNING') {
    options.log?.({ message: 'diagnosis replayed', runId: stored.runId, status: stored.status });
    return resultOfStoredRun(stored);
  }
  // NOTE: the one abandonment rule (see `abandonment.ts`): only a run no invocation can still be working on is closed.
  if (!isAbandoned(stored, options.now(), options.abandonment)) throw new DiagnosisRunConflictError();
  if (!(await closeAbandonedRun(store, stored, options.now()))) {
    const current = await store.getRun(stored.runId);
    if (current !== null && current.status !== 'RUNNING') return resultOfStoredRun(current);
    throw new DiagnosisRunConflictError();
  }
  options.log?.({ message: 'abandoned run closed', runId: stored.runId });
  const closed = await store.getRun(stored.runId);
  if (closed === null) throw new DiagnosisRunConflictError();
  return resultOfStoredRun(closed);
}
