import { DiagnosisWorkflowConflictError } from '@diagnosis/core';
import { createMemoryRunStore } from '@diagnosis/core/store';
import { createLocalDiagnosisWorkflow, LOCAL_WORKFLOW_ARN, runLocalWorkflow } from '@diagnosis/devkit';
import { describe, expect, it } from 'vitest';
import { DIAGNOSE_ERRORS, DIAGNOSE_RETRIERS, executionArnOf } from '../../../functions/diagnose/diagnosis-workflows.ts';
import { createObservability } from '../../../functions/lambda/observability.ts';

const request = (runId: string) => ({
  runId,
  sessionId: 's',
  enterpriseId: 'E1001',
  query: 'E1001 的订单从 14:05 开始失败，为什么？',
  continueSession: false,
});
const named = (name: string) => Object.assign(new Error('raw text that must not be logged'), { name });

/** The stand-in over an in-memory run store, its log lines kept. */
function standIn(invoke: (payload: unknown) => Promise<unknown>) {
  const store = createMemoryRunStore();
  const lines: Record<string, unknown>[] = [];
  const { logger } = createObservability('LocalWorkflow', (line) => lines.push(JSON.parse(line)));
  const workflow = createLocalDiagnosisWorkflow({ invoke, store, logger, delayScale: 0, random: () => 0.5 });
  /** Queues the run as StartDiagnosis does: owned by its execution here. */
  const queue = (runId: string) =>
    store.queueRun(request(runId), { executionArn: executionArnOf(LOCAL_WORKFLOW_ARN, runId) });
  return { store, lines, workflow, queue };
}

describe('createLocalDiagnosisWorkflow', () => {
  it('closes a QUEUED run FAILED WORKFLOW_FAILED when its execution fails, and logs the error by class only', async () => {
    const invoked: unknown[] = [];
    const { store, lines, workflow, queue } = standIn(async (payload) => {
      invoked.push(payload);
      throw named('DiagnosisServiceError');
    });
    await queue('run-fails');
    await workflow.start(request('run-fails'));
    await workflow.idle();
    // The deployed retrier: DiagnosisServiceError twice more, then the execution fails.
    expect(invoked).toHaveLength(3);
    expect(invoked[0]).toEqual({
      ...request('run-fails'),
      executionArn: 'arn:aws:states:local:000000000000:execution:DiagnosisWorkflow:run-fails',
    });
    expect(await store.getRun('run-fails')).toMatchObject({ status: 'FAILED', errorCode: 'WORKFLOW_FAILED' });
    expect(lines).toContainEqual(
      expect.objectContaining({
        message: 'workflow execution failed',
        runId: 'run-fails',
        executionArn: 'arn:aws:states:local:000000000000:execution:DiagnosisWorkflow:run-fails',
        error: 'DiagnosisServiceError',
      }),
    );
    expect(lines).toContainEqual(
      expect.objectContaining({ message: 'workflow ended', runId: 'run-fails', workflowStatus: 'FAILED' }),
    );
    expect(JSON.stringify(lines)).not.toContain('raw text');
  });

  it('waits out a busy enterprise with the definition’s retrier, then runs', async () => {
    let calls = 0;
    const { store, workflow, queue } = standIn(async () => {
      calls += 1;
      if (calls <= 5) throw named('DiagnosisTenantBusyError');
      return { runId: 'run-busy', status: 'PUBLISHED' };
    });
    await queue('run-busy');
    await workflow.start(request('run-busy'));
    await workflow.idle();
    expect(calls).toBe(6);
    expect(await store.getRun('run-busy')).toMatchObject({ status: 'QUEUED' });
  });

  it('fails the execution of a run whose enterprise stays busy past every retry, and closes the run', async () => {
    let calls = 0;
    const { store, workflow, queue } = standIn(async () => {
      calls += 1;
      throw named('DiagnosisTenantBusyError');
    });
    await queue('run-starved');
    await workflow.start(request('run-starved'));
    await workflow.idle();
    const busy = DIAGNOSE_RETRIERS.find((retrier) => retrier.ErrorEquals.includes(DIAGNOSE_ERRORS.tenantBusy));
    expect(calls).toBe((busy?.MaxAttempts ?? 0) + 1);
    expect(await store.getRun('run-starved')).toMatchObject({ status: 'FAILED', errorCode: 'WORKFLOW_FAILED' });
  });

  it('answers a second start as Step Functions does: the same while running, refused once ended or for another input', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let calls = 0;
    const { workflow } = standIn(async () => {
      calls += 1;
      await gate;
      return { runId: 'run-twice', status: 'PUBLISHED' };
    });
    await workflow.start(request('run-twice'));
    await workflow.start(request('run-twice'));
    await expect(workflow.start({ ...request('run-twice'), query: 'another' })).rejects.toMatchObject({
      code: 'WORKFLOW_EXECUTION_CONFLICT',
    });
    release();
    await workflow.idle();
    expect(calls).toBe(1);
    const ended = await workflow.start(request('run-twice')).catch((error: unknown) => error);
    expect(ended).toBeInstanceOf(DiagnosisWorkflowConflictError);
    expect(ended).toMatchObject({ code: 'WORKFLOW_EXECUTION_ENDED', runErrorCode: 'WORKFLOW_FAILED' });
  });

  it('leaves a RUNNING run its live invocation holds as it is when the execution fails (the sweeper’s, not the event’s)', async () => {
    const { store, lines, workflow, queue } = standIn(async () => ({ runId: 'run-odd', status: 'SOMETHING_ELSE' }));
    await queue('run-odd');
    await store.claimQueuedRun('run-odd', Date.now() + 60_000, {
      owner: executionArnOf(LOCAL_WORKFLOW_ARN, 'run-odd'),
    });
    await workflow.start(request('run-odd'));
    await workflow.idle();
    // `DiagnosisFailed` (an unknown status) fails the execution; the event reaches the handler, which leaves a run
    // held by a live invocation alone (main's ownership rule); the execution's failure is logged.
    expect(await store.getRun('run-odd')).toMatchObject({ status: 'RUNNING' });
    expect(lines).toContainEqual(
      expect.objectContaining({ message: 'workflow execution failed', runId: 'run-odd', error: 'DiagnosisFailed' }),
    );
  });
});

describe('runLocalWorkflow’s context object', () => {
  it('has Execution.Id, Name, Input, StartTime and StateMachine.Id as Step Functions gives them', async () => {
    const payloads: unknown[] = [];
    const startTime = new Date('2026-12-01T09:00:00.000Z');
    const execution = await runLocalWorkflow(
      {
        StartAt: 'Task',
        States: {
          Task: {
            Type: 'Task',
            Resource: 'arn:aws:states:::lambda:invoke',
            Arguments: {
              FunctionName: 'f',
              Payload: {
                id: '{% $states.context.Execution.Id %}',
                name: '{% $states.context.Execution.Name %}',
                input: '{% $states.context.Execution.Input %}',
                start: '{% $states.context.Execution.StartTime %}',
                machine: '{% $states.context.StateMachine.Id %}',
              },
            },
            End: true,
          },
        },
      },
      { runId: 'r-1' },
      {
        executionName: 'r-1',
        stateMachineArn: LOCAL_WORKFLOW_ARN,
        startTime,
        invoke: async (_arn, payload) => void payloads.push(payload),
      },
    );
    expect(execution.status).toBe('SUCCEEDED');
    expect(payloads).toEqual([
      {
        id: 'arn:aws:states:local:000000000000:execution:DiagnosisWorkflow:r-1',
        name: 'r-1',
        input: { runId: 'r-1' },
        start: '2026-12-01T09:00:00.000Z',
        machine: LOCAL_WORKFLOW_ARN,
      },
    ]);
  });
});
