import {
  DescribeExecutionCommand,
  ExecutionAlreadyExists,
  ExecutionDoesNotExist,
  type SFNClient,
  StartExecutionCommand,
  StopExecutionCommand,
} from '@aws-sdk/client-sfn';
import { type DiagnosisRunRequest, type DiagnosisWorkflow, DiagnosisWorkflowConflictError } from '@diagnosis/core';
import { executionArnOf } from './diagnosis-workflows.ts';

/** Statuses of an execution that will still run Diagnose (a failed one being redriven runs again). */
const OPEN_EXECUTION_STATUSES: ReadonlySet<string> = new Set(['RUNNING', 'PENDING_REDRIVE']);

/**
 * The DiagnosisWorkflow on Step Functions: an execution named by the runId, stopped by its ARN. A client made once
 * per cold start.
 *
 * NOTE: a second StartExecution with the name and input of a RUNNING execution succeeds (Standard workflows are
 * idempotent so); `ExecutionAlreadyExists` means the named execution has ended or has another input. So that
 * refusal is never taken as a start: the execution under the run's name is read, and only this run's own execution
 * (this state machine, exactly this input) still running counts as started. One of another request or machine is
 * `WORKFLOW_EXECUTION_CONFLICT`; this run's own, ended, is `WORKFLOW_EXECUTION_ENDED` (no execution will take the
 * QUEUED run any more). `startDiagnosis` closes the run with the error's `runErrorCode`.
 */
export function createStepFunctionsWorkflow(client: SFNClient, stateMachineArn: string): DiagnosisWorkflow {
  const executionArn = (runId: string) => executionArnOf(stateMachineArn, runId);
  return {
    executionArnOf: executionArn,
    async start(request: DiagnosisRunRequest) {
      const input = JSON.stringify(request);
      try {
        await client.send(new StartExecutionCommand({ stateMachineArn, name: request.runId, input }));
        return;
      } catch (error) {
        if (!(error instanceof ExecutionAlreadyExists)) throw error;
      }
      const existing = await client.send(new DescribeExecutionCommand({ executionArn: executionArn(request.runId) }));
      if (existing.stateMachineArn !== stateMachineArn || existing.input !== input) {
        throw new DiagnosisWorkflowConflictError('WORKFLOW_EXECUTION_CONFLICT');
      }
      if (!OPEN_EXECUTION_STATUSES.has(String(existing.status))) {
        throw new DiagnosisWorkflowConflictError('WORKFLOW_EXECUTION_ENDED');
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
