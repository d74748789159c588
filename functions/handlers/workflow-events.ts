import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { cancelDiagnosis, isRunId, type RunStore, type StoredRun } from '@diagnosis/core';
import middy from '@middy/core';
import * as v from 'valibot';
import type { Observability } from '../setup/observability.ts';

/** The EventBridge event Step Functions sends when an execution of the DiagnosisWorkflow changes status. */
const executionStatusChange = v.object({
  source: v.literal('aws.states'),
  'detail-type': v.literal('Step Functions Execution Status Change'),
  detail: v.object({ name: v.string(), status: v.string() }),
});

/**
 * A DiagnosisWorkflow execution stopped from the console (or the API) stops its run too: stopping an execution does
 * not stop the Lambda it is waiting on, so the run is flagged, and its invocation ends it CANCELLED within a poll.
 * Anything else (another status, another shape, a name that is not a run id) is ignored.
 */
export function createWorkflowStoppedHandler(
  store: Pick<RunStore, 'requestCancel'>,
  options: Pick<Observability, 'logger'>,
) {
  return middy<unknown, { cancelled: StoredRun['status'] | null }>()
    .use(injectLambdaContext(options.logger, { resetKeys: true }))
    .handler(async (event) => {
      const parsed = v.safeParse(executionStatusChange, event);
      if (!parsed.success || parsed.output.detail.status !== 'ABORTED' || !isRunId(parsed.output.detail.name)) {
        return { cancelled: null };
      }
      const run = await cancelDiagnosis(parsed.output.detail.name, { store });
      options.logger.info('workflow stopped', { runId: parsed.output.detail.name, status: run?.status ?? null });
      return { cancelled: run?.status ?? null };
    });
}
