// NOTE: aws-sdk-client-mock because Step Functions has no local engine this project can run.
import {
  DescribeExecutionCommand,
  ExecutionAlreadyExists,
  ExecutionDoesNotExist,
  SFNClient,
  StartExecutionCommand,
  StopExecutionCommand,
} from '@aws-sdk/client-sfn';
import { DiagnosisWorkflowConflictError } from '@diagnosis/core';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { createStepFunctionsWorkflow } from '../../../../functions/diagnose/step-functions-workflow.ts';

const ARN = 'arn:aws:states:eu-west-1:123456789012:stateMachine:diagnosis-prod-DiagnosisWorkflow';
const request = { runId: 'run-1', sessionId: 's', enterpriseId: 'E1001', query: '订单失败', continueSession: false };
const sfn = mockClient(SFNClient);
afterEach(() => sfn.reset());

describe('createStepFunctionsWorkflow', () => {
  it('starts one execution named by the runId with the request as its input', async () => {
    sfn.on(StartExecutionCommand).resolves({ executionArn: 'x', startDate: new Date() });
    await createStepFunctionsWorkflow(new SFNClient({ region: 'eu-west-1' }), ARN).start(request);
    expect(sfn.commandCalls(StartExecutionCommand).map((call) => call.args[0].input)).toEqual([
      { stateMachineArn: ARN, name: 'run-1', input: JSON.stringify(request) },
    ]);
  });

  it('takes an existing execution as started only when it is this run’s own, still running (issue 19)', async () => {
    const executionArn = 'arn:aws:states:eu-west-1:123456789012:execution:diagnosis-prod-DiagnosisWorkflow:run-1';
    sfn.on(StartExecutionCommand).rejects(new ExecutionAlreadyExists({ message: 'exists', $metadata: {} }));
    sfn
      .on(DescribeExecutionCommand, { executionArn })
      .resolvesOnce({ executionArn, stateMachineArn: ARN, status: 'RUNNING', input: JSON.stringify(request) } as never)
      .resolvesOnce({ executionArn, stateMachineArn: ARN, status: 'RUNNING', input: '{}' } as never)
      .resolves({ executionArn, stateMachineArn: ARN, status: 'FAILED', input: JSON.stringify(request) } as never);
    const workflow = createStepFunctionsWorkflow(new SFNClient({ region: 'eu-west-1' }), ARN);
    await expect(workflow.start(request)).resolves.toBeUndefined();
    await expect(workflow.start(request)).rejects.toBeInstanceOf(DiagnosisWorkflowConflictError);
    await expect(workflow.start(request)).rejects.toMatchObject({
      code: 'WORKFLOW_EXECUTION_ENDED',
      runErrorCode: 'WORKFLOW_FAILED',
    });
  });

  it('lets any other failure reach the caller, who answers 500 and may retry the same request', async () => {
    sfn.on(StartExecutionCommand).rejects(Object.assign(new Error('throttled'), { name: 'ThrottlingException' }));
    await expect(
      createStepFunctionsWorkflow(new SFNClient({ region: 'eu-west-1' }), ARN).start(request),
    ).rejects.toMatchObject({ name: 'ThrottlingException' });
  });

  it('stops the run’s execution by its ARN, and takes a missing one as stopped', async () => {
    sfn
      .on(StopExecutionCommand)
      .resolvesOnce({ stopDate: new Date() })
      .rejects(new ExecutionDoesNotExist({ message: 'gone', $metadata: {} }));
    const workflow = createStepFunctionsWorkflow(new SFNClient({ region: 'eu-west-1' }), ARN);
    await workflow.stop('run-1');
    await expect(workflow.stop('run-2')).resolves.toBeUndefined();
    expect(sfn.commandCalls(StopExecutionCommand)[0]?.args[0].input).toEqual({
      executionArn: 'arn:aws:states:eu-west-1:123456789012:execution:diagnosis-prod-DiagnosisWorkflow:run-1',
      cause: 'cancelled on request',
    });
  });
});
