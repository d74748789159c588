/**
 * The DiagnosisWorkflow's stand-in for local runs and tests, where there is no Step Functions: each start runs the
 * deployed definition (`buildDiagnosisWorkflowDefinition`) through the local interpreter against the real Diagnose
 * handler, in this process. So a busy enterprise is waited out with the definition's own retriers (real waits, scaled
 * by `delayScale`), and an execution that ends without succeeding is handed, as the EventBridge event Step Functions
 * sends, to the very handler the deployed rule invokes (`createWorkflowEventsHandler`), which closes its run. Every
 * error is logged by class; none is dropped. NOTE: never for a deployed function — a Lambda is frozen once it has
 * answered; the deployed StartDiagnosis and CancelRun refuse to start without DIAGNOSIS_WORKFLOW_ARN.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import {
  type DiagnosisRunRequest,
  type DiagnosisWorkflow,
  DiagnosisWorkflowConflictError,
  type RunStore,
  safeErrorName,
} from '@diagnosis/core';
// NOTE: the handler's own subpath: the devkit's index is loaded by every local command, the functions' index loads
// the whole model stack.
import { createWorkflowEventsHandler } from '@diagnosis/functions/workflow-events';
import { buildDiagnosisWorkflowDefinition, executionArnOf, LOCAL_WORKFLOW_ARN } from '@diagnosis/functions/workflows';
import { lambdaContext } from './lambda-context.ts';
import { type LocalExecution, runLocalWorkflow } from './local-workflow.ts';

/** The local DiagnosisWorkflow's ARN: what the workflow events handler is told is its own state machine. */
export { LOCAL_WORKFLOW_ARN };

const LOCAL_DIAGNOSE_ARN = 'arn:aws:lambda:local:000000000000:function:Diagnose';

export interface LocalDiagnosisWorkflowOptions {
  /** One Diagnose invocation: the real handler, given the task's payload and a Lambda context. */
  invoke(payload: unknown, context: ReturnType<typeof lambdaContext>): Promise<unknown>;
  /** The table the workflow events handler closes runs in (the same one Diagnose writes). */
  store: Pick<RunStore, 'getRun' | 'requestCancel' | 'claimQueuedRun' | 'completeRun' | 'listRunRecords'>;
  logger: Logger;
  /** Multiplies every retry wait of the definition (default 1: real time; tests use e.g. 0.001). */
  delayScale?: number;
  /** For `JitterStrategy: FULL` (default `Math.random`). */
  random?: () => number;
  /** The Diagnose invocation's time limit (default: the deployed function's 5 minutes). */
  invocationTimeoutMs?: number;
}

/** The EventBridge event of an execution's status change, as Step Functions sends it. */
export interface ExecutionStatusChangeEvent {
  version: '0';
  id: string;
  'detail-type': 'Step Functions Execution Status Change';
  source: 'aws.states';
  account: string;
  time: string;
  region: string;
  resources: string[];
  detail: {
    executionArn: string;
    stateMachineArn: string;
    name: string;
    status: 'SUCCEEDED' | 'FAILED';
    startDate: number;
    stopDate: number;
    input: string;
    output: string | null;
    inputDetails: { included: boolean };
    outputDetails: { included: boolean } | null;
    error: string | null;
    cause: string | null;
  };
}

interface LocalExecutionRecord {
  input: string;
  ended: boolean;
}

export type LocalDiagnosisWorkflow = DiagnosisWorkflow & {
  /** Waits until every execution started here has ended (and its run was closed if it failed). */
  idle(): Promise<void>;
};

export function createLocalDiagnosisWorkflow(options: LocalDiagnosisWorkflowOptions): LocalDiagnosisWorkflow {
  const definition = buildDiagnosisWorkflowDefinition({ diagnoseFunctionArn: LOCAL_DIAGNOSE_ARN });
  const onWorkflowEvent = createWorkflowEventsHandler(options.store, {
    logger: options.logger,
    workflowArn: LOCAL_WORKFLOW_ARN,
  });
  const scale = options.delayScale ?? 1;
  const executions = new Map<string, LocalExecutionRecord>();
  const running = new Set<Promise<void>>();

  const execute = async (name: string, request: DiagnosisRunRequest, record: LocalExecutionRecord) => {
    const startDate = new Date();
    const executionArn = executionArnOf(LOCAL_WORKFLOW_ARN, name);
    let execution: LocalExecution;
    try {
      execution = await runLocalWorkflow(definition, structuredClone(request), {
        executionName: name,
        stateMachineArn: LOCAL_WORKFLOW_ARN,
        startTime: startDate,
        invoke: (_functionArn, payload) =>
          options.invoke(payload, lambdaContext(options.invocationTimeoutMs ?? 300_000)),
        sleep: (milliseconds) => new Promise((resolve) => setTimeout(resolve, Math.round(milliseconds * scale))),
        ...(options.random === undefined ? {} : { random: options.random }),
      });
    } catch (error) {
      // NOTE: the interpreter refused the definition itself: on Step Functions the execution would fail too.
      execution = { status: 'FAILED', error: safeErrorName(error), cause: undefined, states: [] };
    }
    record.ended = true;
    if (execution.status === 'SUCCEEDED') return;
    options.logger.error('workflow execution failed', { runId: name, executionArn, error: execution.error });
    const event = statusChangeEvent(executionArn, name, record.input, startDate, execution);
    try {
      await onWorkflowEvent(event, lambdaContext(10_000, 'OnWorkflowStopped'));
    } catch (error) {
      options.logger.error('workflow event handler failed', { runId: name, error: safeErrorName(error) });
    }
  };

  return {
    executionArnOf: (runId) => executionArnOf(LOCAL_WORKFLOW_ARN, runId),
    async start(request) {
      const name = request.runId;
      const input = JSON.stringify(request);
      const existing = executions.get(name);
      // NOTE: as Step Functions answers a second StartExecution: the same name and input while running is the same
      // start; an ended execution's name, or another input, is refused (see createStepFunctionsWorkflow).
      if (existing !== undefined) {
        if (existing.input !== input) throw new DiagnosisWorkflowConflictError('WORKFLOW_EXECUTION_CONFLICT');
        if (existing.ended) throw new DiagnosisWorkflowConflictError('WORKFLOW_EXECUTION_ENDED');
        return;
      }
      const record: LocalExecutionRecord = { input, ended: false };
      executions.set(name, record);
      const run = execute(name, request, record).finally(() => running.delete(run));
      running.add(run);
    },
    async stop() {
      // NOTE: nothing to stop here: the cancel route has flagged the run, and its invocation watches that flag.
    },
    async idle() {
      while (running.size > 0) await Promise.all([...running]);
    },
  };
}

function statusChangeEvent(
  executionArn: string,
  name: string,
  input: string,
  startDate: Date,
  execution: Extract<LocalExecution, { status: 'FAILED' }>,
): ExecutionStatusChangeEvent {
  const stopDate = new Date();
  return {
    version: '0',
    id: `local-${name}`,
    'detail-type': 'Step Functions Execution Status Change',
    source: 'aws.states',
    account: '000000000000',
    time: stopDate.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    region: 'local',
    resources: [executionArn],
    detail: {
      executionArn,
      stateMachineArn: LOCAL_WORKFLOW_ARN,
      name,
      status: 'FAILED',
      startDate: startDate.getTime(),
      stopDate: stopDate.getTime(),
      input,
      output: null,
      inputDetails: { included: true },
      outputDetails: null,
      error: execution.error,
      cause: execution.cause ?? null,
    },
  };
}
