/**
 * Issue 19, defect 1: run R is RUNNING inside a Diagnose invocation; a second
 * invocation of R (a Lambda service retry of an invoke that did run) gets RUN_IN_PROGRESS, that execution fails, and
 * its FAILED status-change event closed R as FAILED WORKFLOW_FAILED at once — the live invocation then could not
 * complete (RUN_NOT_RUNNING) and the diagnosis was lost. The handler also took `detail.name` as the run id, so an
 * execution named X whose input names run Y closed or cancelled X. Now a run records the execution that owns it; an
 * event changes a run only when its execution is the run's own, and never while a live invocation holds it.
 * The deployed DiagnosisWorkflow definition runs through the local interpreter against the real Diagnose handler,
 * on DynamoDB Local, with the loopback DeepSeek-format model server.
 */
import { createDynamoRunStore } from '@diagnosis/core/store';
import { runLocalWorkflow } from '@diagnosis/devkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDiagnosisWorkflowDefinition, executionArnOf } from '../../../functions/diagnose/diagnosis-workflows.ts';
import { createWorkflowEventsHandler } from '../../../functions/diagnose/workflow-events.ts';
import { createObservability } from '../../../functions/lambda/observability.ts';
import { wireText } from '../../support/deepseek-server.ts';
import { localDynamoClient } from '../../support/dynamodb.ts';
import { startE2eWorld } from '../../support/e2e-world.ts';
import { lambdaContext } from '../../support/lambda-events.ts';
import { noConclusionDraft } from '../../support/run-fixtures.ts';

const FUNCTION_ARN = 'arn:aws:lambda:eu-west-1:123456789012:function:Diagnose';
const WORKFLOW_ARN = 'arn:aws:states:eu-west-1:123456789012:stateMachine:diagnosis-test-DiagnosisWorkflow';
const definition = buildDiagnosisWorkflowDefinition({ diagnoseFunctionArn: FUNCTION_ARN });
let world: Awaited<ReturnType<typeof startE2eWorld>>;
const dynamo = localDynamoClient();
let store: ReturnType<typeof createDynamoRunStore>;
let onWorkflowEvent: ReturnType<typeof createWorkflowEventsHandler>;
beforeAll(async () => {
  world = await startE2eWorld();
  store = createDynamoRunStore({ client: dynamo, tableName: world.tableName });
  onWorkflowEvent = createWorkflowEventsHandler(store, {
    ...createObservability('OnWorkflowStopped', () => undefined),
    workflowArn: WORKFLOW_ARN,
  });
});
afterAll(async () => {
  await world?.cleanup();
  dynamo.destroy();
});

let counter = 0;
const newRunId = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}`;
const requestOf = (runId: string) => ({
  runId,
  sessionId: 's',
  enterpriseId: 'E1001',
  query: 'E1001 的订单从 14:05 开始失败，为什么？',
  continueSession: false,
});

/** One execution of the deployed definition, named `name`, invoking the real Diagnose handler. */
const execute = (name: string, input: unknown) =>
  runLocalWorkflow(definition, input, {
    executionName: name,
    stateMachineArn: WORKFLOW_ARN,
    sleep: async () => undefined,
    invoke: async (_arn, payload) => world.handlers.diagnose(payload, lambdaContext(60_000)),
  });

/** The EventBridge event Step Functions sends when the execution `name` (with `input`) ends with `status`. */
const statusEvent = (name: string, status: string, input: unknown) => ({
  version: '0',
  id: `event-${name}-${status}`,
  'detail-type': 'Step Functions Execution Status Change',
  source: 'aws.states',
  account: '123456789012',
  time: '2026-11-30T06:10:00Z',
  region: 'eu-west-1',
  resources: [executionArnOf(WORKFLOW_ARN, name)],
  detail: {
    executionArn: executionArnOf(WORKFLOW_ARN, name),
    stateMachineArn: WORKFLOW_ARN,
    name,
    status,
    startDate: 1_796_018_000_000,
    stopDate: 1_796_018_060_000,
    input: JSON.stringify(input),
    output: null,
    inputDetails: { included: true },
    outputDetails: null,
  },
});

/** A model round that answers only when `release` is called. */
function blockedRound() {
  let release: () => void = () => undefined;
  const entry = async () => {
    await new Promise<void>((resolve) => {
      release = resolve;
    });
    return wireText(JSON.stringify(noConclusionDraft()));
  };
  return { entry, release: () => release() };
}
const until = async (check: () => Promise<boolean>) => {
  for (let tries = 0; tries < 400; tries += 1) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('the awaited state never came');
};

describe('a workflow event and a live run', () => {
  it('never closes a run a live invocation holds: second invocation → conflict → failed execution → FAILED event', async () => {
    const runId = newRunId('live');
    const request = requestOf(runId);
    // What POST /diagnoses does: the run QUEUED and bound to the execution its start creates.
    await store.queueRun(request, { executionArn: executionArnOf(WORKFLOW_ARN, runId) });
    const blocked = blockedRound();
    world.server.script.push(blocked.entry);
    const live = execute(runId, request);
    await until(async () => (await store.getRun(runId))?.status === 'RUNNING');

    // The same execution invokes Diagnose again (a Lambda service retry of an invoke that did run).
    const second = await execute(runId, request);
    expect(second).toMatchObject({ status: 'FAILED', error: 'DiagnosisRunConflictError' });
    // Step Functions sends that execution's FAILED event: the run is the execution's own, but a live invocation holds it.
    expect(await onWorkflowEvent(statusEvent(runId, 'FAILED', request), lambdaContext(5_000))).toEqual({ run: null });
    expect(await store.getRun(runId)).toMatchObject({ status: 'RUNNING', errorCode: null });

    blocked.release();
    expect(await live).toMatchObject({ status: 'SUCCEEDED', output: { status: 'PUBLISHED' } });
    expect(await store.getRun(runId)).toMatchObject({ status: 'SUCCEEDED', errorCode: null });
  });

  it('changes nothing for an execution named X whose input names run Y, and never takes Y', async () => {
    const y = newRunId('y');
    const x = newRunId('x');
    await store.queueRun(requestOf(y), { executionArn: executionArnOf(WORKFLOW_ARN, y) });
    await store.queueRun(requestOf(x), { executionArn: executionArnOf(WORKFLOW_ARN, x) });
    // A direct start named X with Y's request as its input: its Diagnose task may not take Y.
    const stray = await execute(x, requestOf(y));
    expect(stray).toMatchObject({ status: 'FAILED', error: 'DiagnosisRunConflictError' });
    for (const status of ['FAILED', 'TIMED_OUT', 'ABORTED']) {
      expect(await onWorkflowEvent(statusEvent(x, status, requestOf(y)), lambdaContext(5_000))).toEqual({ run: null });
    }
    // Neither Y (named by the input, owned by another execution) nor X (the execution's name) changed.
    expect(await store.getRun(y)).toMatchObject({ status: 'QUEUED', errorCode: null, cancelRequestedAt: null });
    expect(await store.getRun(x)).toMatchObject({ status: 'QUEUED', errorCode: null, cancelRequestedAt: null });
    // Y's own execution still takes and finishes it.
    world.server.script.push(wireText(JSON.stringify(noConclusionDraft())));
    expect(await execute(y, requestOf(y))).toMatchObject({ status: 'SUCCEEDED' });
  });

  it('closes a QUEUED run when its own execution failed, and cancels it when its own execution was stopped', async () => {
    const failedRun = newRunId('own-failed');
    const stoppedRun = newRunId('own-stopped');
    await store.queueRun(requestOf(failedRun), { executionArn: executionArnOf(WORKFLOW_ARN, failedRun) });
    await store.queueRun(requestOf(stoppedRun), { executionArn: executionArnOf(WORKFLOW_ARN, stoppedRun) });
    expect(await onWorkflowEvent(statusEvent(failedRun, 'FAILED', requestOf(failedRun)), lambdaContext(5_000))).toEqual(
      { run: 'FAILED' },
    );
    expect(await store.getRun(failedRun)).toMatchObject({ status: 'FAILED', errorCode: 'WORKFLOW_FAILED' });
    expect(
      await onWorkflowEvent(statusEvent(stoppedRun, 'ABORTED', requestOf(stoppedRun)), lambdaContext(5_000)),
    ).toEqual({ run: 'CANCELLED' });
  });
});
