import {
  ExecutionAlreadyExists,
  ExecutionDoesNotExist,
  type SFNClient,
  StartExecutionCommand,
  StopExecutionCommand,
} from '@aws-sdk/client-sfn';
import type { DiagnosisRunRequest, WorkflowStarter } from '@diagnosis/core';
import type { Context } from 'aws-lambda';
import { executionArnOf, LOCAL_WORKFLOW_ARN } from '../workflows/diagnosis-workflows.ts';
import { lambdaContext } from './lambda-context.ts';

/**
 * The DiagnosisWorkflow on Step Functions: an execution named by the runId (so a second start of the same run is
 * harmless), stopped by its ARN. A client made once per cold start.
 */
export function createStepFunctionsWorkflow(client: SFNClient, stateMachineArn: string): WorkflowStarter {
  const executionArn = (runId: string) => executionArnOf(stateMachineArn, runId);
  return {
    executionArnOf: executionArn,
    async start(request: DiagnosisRunRequest) {
      try {
        await client.send(
          new StartExecutionCommand({ stateMachineArn, name: request.runId, input: JSON.stringify(request) }),
        );
      } catch (error) {
        if (!(error instanceof ExecutionAlreadyExists)) throw error;
      }
    },
    async stop(runId: string) {
      try {
        await client.send(
          new StopExecutionCommand({ executionArn: executionArn(runId), cause: 'cancelled on request' }),
        );
      } catch (error) {
        if (!(error instanceof ExecutionDoesNotExist)) throw error;
      }
    },
  };
}

type Invoke = (payload: DiagnosisRunRequest, context: Context) => Promise<unknown>;

/**
 * The workflow's stand-in for local runs and tests (no DIAGNOSIS_WORKFLOW_ARN): the Diagnose handler invoked in this
 * process with the payload the state machine would send. NOTE: never for a deployed function — a Lambda is frozen
 * once it has answered; `sst.config.ts` always sets DIAGNOSIS_WORKFLOW_ARN.
 */
export function createInProcessWorkflow(loadDiagnose: () => Promise<Invoke>, timeoutMs = 300_000) {
  const running = new Set<Promise<unknown>>();
  const workflow: WorkflowStarter & { idle(): Promise<void> } = {
    executionArnOf: (runId) => executionArnOf(LOCAL_WORKFLOW_ARN, runId),
    async start(request) {
      const invoke = await loadDiagnose();
      const run = invoke(
        { ...request, executionArn: executionArnOf(LOCAL_WORKFLOW_ARN, request.runId) } as DiagnosisRunRequest,
        lambdaContext(timeoutMs),
      )
        .catch(() => undefined)
        .finally(() => running.delete(run));
      running.add(run);
    },
    async stop() {
      // NOTE: nothing to stop: the run's invocation watches its cancel flag.
    },
    /** Waits until every run started here has ended. */
    async idle() {
      while (running.size > 0) await Promise.all([...running]);
    },
  };
  return workflow;
}
