import { evaluateTemplate, runLocalWorkflow } from '@diagnosis/devkit';
import validator from 'asl-validator';
import { describe, expect, it } from 'vitest';
import {
  buildDiagnosisBatchDefinition,
  buildDiagnosisWorkflowDefinition,
  DIAGNOSE_RETRIERS,
  JSON_LINES_PREFIX,
  type StateMachineDefinition,
} from '../../../../functions/diagnose/diagnosis-workflows.ts';

const ARN = 'arn:aws:lambda:eu-west-1:123456789012:function:diagnosis-agent-prod-DiagnoseFunction';
const workflow = buildDiagnosisWorkflowDefinition({ diagnoseFunctionArn: ARN });
const batch = buildDiagnosisBatchDefinition({ diagnoseFunctionArn: ARN, maxConcurrency: 8 });

/** asl-validator changes what it is given (it fills in QueryLanguage): it gets a copy. */
const validate = (definition: object) => validator(structuredClone(definition));

const noWait = async () => undefined;
/** Runs a definition whose Diagnose task answers with `answer` (a result, or a thrown error). */
async function runWith(
  definition: StateMachineDefinition,
  input: unknown,
  answer: (payload: unknown) => unknown,
  options: { sleep?: (ms: number) => Promise<void> } = {},
) {
  const payloads: unknown[] = [];
  const execution = await runLocalWorkflow(definition, input, {
    executionName: 'run-20261130-0001',
    sleep: options.sleep ?? noWait,
    invoke: async (functionArn, payload) => {
      expect(functionArn).toBe(ARN);
      payloads.push(payload);
      return answer(payload);
    },
  });
  return { execution, payloads };
}
const named = (name: string) => Object.assign(new Error(`${name} happened`), { name });
const REQUEST = { sessionId: 'ops-42', enterpriseId: 'E1001', query: 'E1001 的订单从 14:05 开始失败，为什么？' };

describe('buildDiagnosisWorkflowDefinition', () => {
  it('is valid Amazon States Language', () => {
    const result = validate(workflow);
    expect(result.errorsText('\n')).toBe('');
    expect(result.isValid).toBe(true);
  });

  it('is refused by the validator when a transition names no state (so the validation can fail)', () => {
    const broken = structuredClone(workflow);
    (broken.States.Released as unknown as { Default: string }).Default = 'Nowhere';
    expect(validate(broken).isValid).toBe(false);
  });

  // The execution the task runs in, as Step Functions' context object names it: the run is bound to it.
  const EXECUTION_ARN = 'arn:aws:states:local:000000000000:execution:DiagnosisWorkflow:run-20261130-0001';

  it('sends the execution name as the runId when the input has none, and continueSession false by default', async () => {
    const { payloads } = await runWith(workflow, REQUEST, () => ({ status: 'PUBLISHED' }));
    expect(payloads).toEqual([
      { ...REQUEST, runId: 'run-20261130-0001', continueSession: false, executionArn: EXECUTION_ARN },
    ]);
  });

  it('sends the input’s own runId and continueSession when it has them', async () => {
    const input = { ...REQUEST, runId: 'run-given', continueSession: true };
    const { payloads } = await runWith(workflow, input, () => ({ status: 'PUBLISHED' }));
    expect(payloads).toEqual([{ ...input, executionArn: EXECUTION_ARN }]);
  });

  it.each([
    ['PUBLISHED', 'Published', 'SUCCEEDED'],
    ['FALLBACK', 'FallbackReported', 'SUCCEEDED'],
    ['CANCELLED', 'Cancelled', 'SUCCEEDED'],
    ['FAILED', 'DiagnosisFailed', 'FAILED'],
    ['SOMETHING_NEW', 'DiagnosisFailed', 'FAILED'],
  ])('ends a %s result in %s', async (status, state, outcome) => {
    const result = { runId: 'r', status, report: { kind: status } };
    const { execution } = await runWith(workflow, REQUEST, () => result);
    expect(execution.states).toEqual(['Diagnose', 'Released', state]);
    expect(execution.status).toBe(outcome);
    if (execution.status === 'SUCCEEDED') expect(execution.output).toEqual(result);
    else expect(execution.error).toBe('DiagnosisFailed');
  });

  it.each([
    ['DiagnosisInputError', 'InvalidInput'],
    ['DiagnosisRunConflictError', 'RunInProgress'],
    ['DiagnosisRunIdConflictError', 'RunIdConflict'],
  ])('catches %s into %s without a retry', async (error, state) => {
    const { execution, payloads } = await runWith(workflow, REQUEST, () => {
      throw named(error);
    });
    expect(payloads).toHaveLength(1);
    expect(execution).toMatchObject({ status: 'FAILED', error, states: ['Diagnose', state] });
  });

  it('retries DiagnosisServiceError and transient Lambda errors twice, then fails with the error', async () => {
    for (const error of ['DiagnosisServiceError', 'Lambda.TooManyRequestsException']) {
      const { execution, payloads } = await runWith(workflow, REQUEST, () => {
        throw named(error);
      });
      expect(payloads).toHaveLength(3);
      expect(execution).toMatchObject({ status: 'FAILED', error, states: ['Diagnose'] });
    }
  });

  it('waits out a busy enterprise with jittered backoff capped at 30 s, then ends in TenantBusy', async () => {
    const waits: number[] = [];
    const execution = await runLocalWorkflow(workflow, REQUEST, {
      executionName: 'run-busy',
      random: () => 1,
      sleep: async (milliseconds) => void waits.push(milliseconds),
      invoke: async () => {
        throw named('DiagnosisTenantBusyError');
      },
    });
    const busy = DIAGNOSE_RETRIERS[1];
    expect(waits).toHaveLength(busy?.MaxAttempts ?? -1);
    expect(waits.slice(0, 4)).toEqual([2_000, 3_000, 4_500, 6_750]);
    expect(Math.max(...waits)).toBe(30_000);
    expect(execution).toMatchObject({
      status: 'FAILED',
      error: 'DiagnosisTenantBusyError',
      states: ['Diagnose', 'TenantBusy'],
    });
  });

  it('fails a Diagnose error it does not know without retrying it', async () => {
    const { execution, payloads } = await runWith(workflow, REQUEST, () => {
      throw named('Lambda.ResourceNotFoundException');
    });
    expect(payloads).toHaveLength(1);
    expect(execution).toMatchObject({ status: 'FAILED', error: 'Lambda.ResourceNotFoundException' });
  });

  it.each(['Sandbox.Timedout', 'Lambda.Unknown'])(
    'retries an invocation that died (%s) twice, 90 s then 360 s later, past the abandonment margin',
    async (name) => {
      const waits: number[] = [];
      const { execution, payloads } = await runWith(
        workflow,
        REQUEST,
        () => {
          throw named(name);
        },
        { sleep: async (ms: number) => void waits.push(ms) },
      );
      expect(payloads).toHaveLength(3);
      expect(waits).toEqual([90_000, 360_000]);
      expect(execution).toMatchObject({ status: 'FAILED', error: name });
    },
  );
});

describe('buildDiagnosisBatchDefinition', () => {
  it('is valid Amazon States Language, with unique state names across both Maps', () => {
    const result = validate(batch);
    expect(result.errorsText('\n')).toBe('');
    expect(result.isValid).toBe(true);
  });

  it('runs each item in a Distributed Map of Standard child executions, at most MaxConcurrency at once', () => {
    for (const name of ['DiagnoseRequests', 'DiagnoseJsonLines']) {
      expect(batch.States[name]).toMatchObject({
        Type: 'Map',
        MaxConcurrency: 8,
        ToleratedFailurePercentage: 100,
        ItemProcessor: { ProcessorConfig: { Mode: 'DISTRIBUTED', ExecutionType: 'STANDARD' } },
      });
    }
    expect(batch.States.DiagnoseJsonLines).toMatchObject({
      ItemReader: { Resource: 'arn:aws:states:::s3:getObject', ReaderConfig: { InputType: 'JSONL' } },
    });
  });

  it('uses the single workflow’s Diagnose task, retriers and catchers in both Maps, but waits out a busy enterprise for days', () => {
    // A batch larger than its enterprise's bounds waits, it never fails for being large: only the busy retrier differs.
    const single = workflow.States.Diagnose as unknown as { Retry: { ErrorEquals: string[]; MaxAttempts: number }[] };
    const patient = {
      ...single,
      Retry: single.Retry.map((retrier) =>
        retrier.ErrorEquals.includes('DiagnosisTenantBusyError') ? { ...retrier, MaxAttempts: 10_000 } : retrier,
      ),
    };
    const processor = (name: string) =>
      (batch.States[name] as unknown as { ItemProcessor: StateMachineDefinition }).ItemProcessor;
    expect(processor('DiagnoseRequests').States.Diagnose).toEqual(patient);
    const lines = processor('DiagnoseJsonLines').States[`${JSON_LINES_PREFIX}Diagnose`] as Record<string, unknown>;
    expect({ ...lines, Catch: undefined, Next: undefined }).toEqual({ ...patient, Catch: undefined, Next: undefined });
  });

  it('refuses a MaxConcurrency that is not a positive integer', () => {
    expect(() => buildDiagnosisBatchDefinition({ diagnoseFunctionArn: ARN, maxConcurrency: 0 })).toThrow(RangeError);
  });

  it('gives an item without a runId `<execution name>-<index>`, keeps an item’s own, and answers { runId, status }', async () => {
    const requests = [REQUEST, { ...REQUEST, runId: 'mine' }, { ...REQUEST, query: 'x' }];
    const { execution, payloads } = await runWith(batch, { requests }, (payload) => ({
      runId: (payload as { runId: string }).runId,
      status: (payload as { query: string }).query === 'x' ? 'FAILED' : 'PUBLISHED',
      report: {},
    }));
    expect((payloads as { runId: string }[]).map((payload) => payload.runId).sort()).toEqual([
      'mine',
      'run-20261130-0001-0',
      'run-20261130-0001-2',
    ]);
    expect(execution).toMatchObject({
      status: 'SUCCEEDED',
      output: {
        total: 3,
        results: [
          { runId: 'run-20261130-0001-0', status: 'PUBLISHED' },
          { runId: 'mine', status: 'PUBLISHED' },
          { Error: 'DiagnosisFailed' },
        ],
      },
    });
  });

  it('reads the items of an S3 JSON Lines object through the ItemReader', async () => {
    const reads: unknown[] = [];
    const execution = await runLocalWorkflow(
      batch,
      { source: { bucket: 'diagnosis-batches', key: 'night/requests.jsonl' } },
      {
        executionName: 'night',
        readItems: async (reader) => {
          reads.push(reader);
          return [REQUEST];
        },
        invoke: async (_arn, payload) => ({ runId: (payload as { runId: string }).runId, status: 'FALLBACK' }),
      },
    );
    expect(reads).toEqual([
      {
        resource: 'arn:aws:states:::s3:getObject',
        arguments: { Bucket: 'diagnosis-batches', Key: 'night/requests.jsonl' },
        readerConfig: { InputType: 'JSONL' },
      },
    ]);
    expect(execution).toMatchObject({
      status: 'SUCCEEDED',
      output: { total: 1, results: [{ runId: 'night-0', status: 'FALLBACK' }] },
    });
  });
});

describe('evaluateTemplate', () => {
  it('fails the state with States.QueryEvaluationError when an expression yields nothing, as Step Functions does', async () => {
    await expect(
      evaluateTemplate({ a: '{% $states.input.missing %}' }, { input: {}, context: {} }),
    ).rejects.toMatchObject({
      name: 'States.QueryEvaluationError',
    });
  });
});
