import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import {
  cancelDiagnosis,
  closeAbandonedRun,
  closeQueuedRun,
  isAbandoned,
  isRunId,
  type RunStore,
  type StoredRun,
} from '@diagnosis/core';
import middy from '@middy/core';
import * as v from 'valibot';
import type { Observability } from '../lambda/observability.ts';
import { executionArnOf } from './diagnosis-workflows.ts';

/** An execution input is at most 256 KiB (a Step Functions quota); anything longer is not read. */
const MAX_INPUT_CHARS = 256 * 1024;
const arn = v.pipe(v.string(), v.maxLength(2_048));

/** The EventBridge event Step Functions sends when an execution changes status (the fields this handler reads). */
const executionStatusChange = v.object({
  source: v.literal('aws.states'),
  'detail-type': v.literal('Step Functions Execution Status Change'),
  detail: v.object({
    executionArn: arn,
    stateMachineArn: arn,
    name: v.pipe(v.string(), v.maxLength(80)),
    status: v.string(),
    // NOTE: null or absent when Step Functions left it out (an input over EventBridge's size limit).
    input: v.optional(v.nullable(v.string())),
  }),
});
type ExecutionEvent = v.InferOutput<typeof executionStatusChange>['detail'];

export interface WorkflowEventsOptions extends Pick<Observability, 'logger'> {
  /** The DiagnosisWorkflow; its executions' events are handled. */
  workflowArn: string | undefined;
  /** The DiagnosisBatch; the events of its Distributed Map's child executions are handled (each is one item's run). */
  batchArn?: string | undefined;
  /** FLUSH_RESERVE_MS of the Diagnose function, for the abandonment rule (default 3 s, the setting's default). */
  flushReserveMs?: number;
  now?: () => number;
}

/** The run's status after the event, or null when the event changed nothing (it was ignored: the reason is logged). */
export type WorkflowEventOutcome = { run: StoredRun['status'] | null };

/**
 * A workflow execution that ended without finishing its run. NOTE: an event changes a run only when its execution is
 * the run's own (`run.executionArn`, bound when the run was queued or started): the event of any other execution — a
 * stray direct start that names the run in its input, a second batch naming the same runId, a duplicate — changes
 * nothing. The run is the one the execution's input names (`runId`, else the execution's name, as the Diagnose task's
 * payload takes it), never the execution's name alone.
 * - ABORTED (stopped from the console or the API): stopping an execution does not stop the Lambda it waits on, so the
 *   run is flagged and its invocation ends it CANCELLED within a poll; a QUEUED one is CANCELLED at once.
 * - FAILED or TIMED_OUT: a QUEUED run (the workflow gave up before taking it) is closed FAILED `WORKFLOW_FAILED`. A
 *   RUNNING run is in an invocation's hands (a second invocation of a live run fails its execution with
 *   RUN_IN_PROGRESS while the first still works) and is never closed by an event — unless the abandonment rule says
 *   no invocation can still be working on it; otherwise its own invocation ends it, or the sweeper does.
 * Anything else — another state machine, another status, another shape — is ignored.
 */
export function createWorkflowEventsHandler(
  store: Pick<RunStore, 'getRun' | 'requestCancel' | 'claimQueuedRun' | 'completeRun' | 'listRunRecords'>,
  options: WorkflowEventsOptions,
) {
  const now = options.now ?? Date.now;
  return middy<unknown, WorkflowEventOutcome>()
    .use(injectLambdaContext(options.logger, { resetKeys: true }))
    .handler(async (event) => {
      const ignored = (reason: string, fields: Record<string, unknown> = {}) => {
        options.logger.info('workflow event ignored', { reason, ...fields });
        return { run: null };
      };
      const parsed = v.safeParse(executionStatusChange, event);
      if (!parsed.success) return ignored('not a workflow status event');
      const detail = parsed.output.detail;
      if (!isOurExecution(detail, options)) return ignored('another state machine');
      const runId = runIdOf(detail);
      if (runId === null) return ignored('no run id');
      const run = await store.getRun(runId);
      if (run === null) return ignored('no such run', { runId });
      if (!ownedBy(run, detail)) {
        options.logger.warn('workflow event of an execution that does not own the run', {
          runId,
          workflowStatus: detail.status,
        });
        return { run: null };
      }
      let after: StoredRun | null;
      if (detail.status === 'ABORTED') {
        after = await cancelDiagnosis(runId, { store });
      } else if (detail.status === 'FAILED' || detail.status === 'TIMED_OUT') {
        if (run.status === 'QUEUED') {
          after = await closeQueuedRun(runId, 'WORKFLOW_FAILED', store, { owner: detail.executionArn, now });
        } else if (run.status === 'RUNNING') {
          if (!isAbandoned(run, now(), { flushReserveMs: options.flushReserveMs ?? 3_000 })) {
            return ignored('the run is held by a live invocation', { runId, workflowStatus: detail.status });
          }
          await closeAbandonedRun(store, run, now());
          after = await store.getRun(runId);
        } else {
          after = run;
        }
      } else {
        return ignored('another status', { runId, workflowStatus: detail.status });
      }
      options.logger.info('workflow ended', { runId, workflowStatus: detail.status, status: after?.status ?? null });
      return { run: after?.status ?? null };
    });
}

/**
 * Whether the event's execution owns the run. NOTE: a run stored before runs recorded their execution has none; its
 * execution was always named by its runId (StartDiagnosis names it so), so only the execution of that name may.
 */
function ownedBy(run: StoredRun, detail: ExecutionEvent): boolean {
  if (run.executionArn !== null) return run.executionArn === detail.executionArn;
  return detail.name === run.runId;
}

function isOurExecution(detail: ExecutionEvent, options: WorkflowEventsOptions): boolean {
  if (options.workflowArn !== undefined && detail.stateMachineArn === options.workflowArn) return true;
  if (options.batchArn === undefined) return false;
  // A Distributed Map's child executions: `…:stateMachine:<batch>/<map run label>` and
  // `…:execution:<batch>/<map run label>:<child name>` (their ARNs name the batch machine and the Map Run).
  const machine =
    detail.stateMachineArn === options.batchArn || detail.stateMachineArn.startsWith(`${options.batchArn}/`);
  return machine && detail.executionArn.startsWith(`${executionArnOf(options.batchArn, '').slice(0, -1)}/`);
}

/** The run an execution works on: its input's `runId` (the Diagnose task's payload takes that first), else its name. */
function runIdOf(detail: ExecutionEvent): string | null {
  let named: unknown = detail.name;
  if (typeof detail.input === 'string' && detail.input.length <= MAX_INPUT_CHARS) {
    try {
      const input: unknown = JSON.parse(detail.input);
      if (typeof input === 'object' && input !== null && 'runId' in input) named = (input as { runId: unknown }).runId;
    } catch {
      return null;
    }
  }
  return isRunId(named) ? named : null;
}
