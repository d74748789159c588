import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { cancelDiagnosis, closeUnfinishedRun, isRunId, type RunStore, type StoredRun } from '@diagnosis/core';
import middy from '@middy/core';
import * as v from 'valibot';
import type { Observability } from '../setup/observability.ts';

/** The EventBridge event Step Functions sends when an execution changes status. */
const executionStatusChange = v.object({
  source: v.literal('aws.states'),
  'detail-type': v.literal('Step Functions Execution Status Change'),
  detail: v.object({ name: v.string(), status: v.string(), stateMachineArn: v.string() }),
});

/**
 * An execution of the DiagnosisWorkflow that ended without finishing its run ends the run too. Stopped (ABORTED, from
 * the console or the API): stopping an execution does not stop the Lambda it waits on, so the run is flagged and its
 * invocation ends it CANCELLED within a poll (a QUEUED one at once). FAILED or TIMED_OUT (retries exhausted, the
 * enterprise busy for too long, a crash before the run was taken): no invocation will finish it, so a QUEUED or
 * RUNNING run is closed FAILED `WORKFLOW_FAILED`. Anything else — another state machine, another status, another
 * shape, a name that is not a run id — is ignored.
 */
export function createWorkflowEventsHandler(
  store: Pick<RunStore, 'getRun' | 'requestCancel' | 'claimQueuedRun' | 'completeRun'>,
  options: Pick<Observability, 'logger'> & { workflowArn: string | undefined },
) {
  return middy<unknown, { run: StoredRun['status'] | null }>()
    .use(injectLambdaContext(options.logger, { resetKeys: true }))
    .handler(async (event) => {
      const parsed = v.safeParse(executionStatusChange, event);
      if (!parsed.success) return { run: null };
      const { name: runId, status, stateMachineArn } = parsed.output.detail;
      if (stateMachineArn !== options.workflowArn || !isRunId(runId)) return { run: null };
      let run: StoredRun | null = null;
      if (status === 'ABORTED') run = await cancelDiagnosis(runId, { store });
      else if (status === 'FAILED' || status === 'TIMED_OUT')
        run = await closeUnfinishedRun(runId, 'WORKFLOW_FAILED', store);
      else return { run: null };
      options.logger.info('workflow ended', { runId, workflowStatus: status, status: run?.status ?? null });
      return { run: run?.status ?? null };
    });
}
