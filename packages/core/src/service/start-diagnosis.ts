import { validateQuery } from '../agent/diagnosis-input.ts';
import { DiagnosisRunIdConflictError, DiagnosisWorkflowConflictError } from '../errors.ts';
import { buildRunLimits, type RunLimits } from '../run/run-limits.ts';
import type { DiagnosisRunRequest } from '../run/run-request.ts';
import { isEnded, type RunStore, type StartRunInput, type StoredRun } from '../store/run-store.ts';
import { assertRequestIds, type Checked, sameRequest } from './checked-run-request.ts';
import { closeQueuedRun } from './close-run.ts';
import type { DiagnosisWorkflow } from './diagnosis-workflow.ts';

/** The longest a start request may wait for its run to end (the HTTP API's own limit is 30 s). */
export const MAX_START_WAIT_MS = 25_000;
const WAIT_POLL_MS = 250;

export interface StartDiagnosisDeps {
  store: Pick<RunStore, 'queueRun' | 'getRun' | 'claimQueuedRun' | 'completeRun' | 'listRunRecords'>;
  workflow: DiagnosisWorkflow;
  limits?: Partial<RunLimits>;
  /** Waits between two reads of the run while the caller asked to wait (tests inject a fast one). */
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

/**
 * The asynchronous start of a diagnosis for a caller inside this process (a trigger, the bench, tests): checks the
 * request's ids (INVALID_IDENTIFIER, before anything is written), then {@link startCheckedDiagnosis}.
 */
export async function startDiagnosis(
  request: StartRunInput,
  deps: StartDiagnosisDeps,
  options: { waitMs?: number } = {},
): Promise<StoredRun> {
  return startCheckedDiagnosis(assertRequestIds(request), deps, options);
}

/**
 * The asynchronous start of a diagnosis whose ids were checked at its boundary (`POST /diagnoses`:
 * `parseStartRequest`): checks the query (before anything is written), queues
 * the run if its enterprise is under its bound of open runs (TENANT_BUSY otherwise) and binds it to its workflow
 * execution (idempotent per runId: the same request again gets the same run; a different one is RUN_ID_CONFLICT),
 * starts its workflow (again for a run still QUEUED, which is harmless: the execution is named by the runId), and
 * optionally waits up to `waitMs` (at most 25 s) for it to end. Returns the run as it is then. A trigger and an
 * incident window are stored on the run, never sent to the workflow: the Diagnose function reads them from the run.
 */
export async function startCheckedDiagnosis(
  request: Checked<StartRunInput>,
  deps: StartDiagnosisDeps,
  options: { waitMs?: number } = {},
): Promise<StoredRun> {
  validateQuery(request.query, buildRunLimits(deps.limits));
  // NOTE: the run is bound to the execution its start creates before that execution exists (admission control: the
  // store refuses a new run of an enterprise at its bound of open runs, writing nothing — DiagnosisTenantBusyError).
  const queued = await deps.store.queueRun(request, { executionArn: deps.workflow.executionArnOf(request.runId) });
  if (!queued.started && !sameRequest(queued.run, request)) throw new DiagnosisRunIdConflictError();
  if (queued.run.status === 'QUEUED') {
    try {
      await deps.workflow.start(workflowPayloadOf(request));
    } catch (error) {
      // NOTE: no execution will ever take this run: it ends FAILED at once instead of waiting QUEUED forever.
      const code = error instanceof DiagnosisWorkflowConflictError ? error.runErrorCode : 'WORKFLOW_START_FAILED';
      await closeQueuedRun(request.runId, code, deps.store, { owner: deps.workflow.executionArnOf(request.runId) });
      throw error;
    }
  }

  const now = deps.now ?? Date.now;
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const until = now() + Math.min(Math.max(0, options.waitMs ?? 0), MAX_START_WAIT_MS);
  let run = queued.run;
  while (!isEnded(run.status) && now() < until) {
    await sleep(Math.min(WAIT_POLL_MS, until - now()));
    run = (await deps.store.getRun(request.runId)) ?? run;
  }
  return run;
}

/** What the workflow is started with: the request's identity and query only (its window is the stored run's). */
function workflowPayloadOf(request: StartRunInput): DiagnosisRunRequest {
  return {
    runId: request.runId,
    sessionId: request.sessionId,
    enterpriseId: request.enterpriseId,
    query: request.query,
    continueSession: request.continueSession,
  };
}
