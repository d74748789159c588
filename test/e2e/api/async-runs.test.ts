/**
 * The asynchronous API through the real handlers (#11): POST /diagnoses answers 202 at once and is idempotent,
 * `?wait` holds the answer until the run ends, GET /runs/{id} shows live progress, and a run is cancelled by the
 * cancel route or by its workflow execution being stopped — ending CANCELLED with its audit and progress kept. The
 * workflow is the in-process stand-in (no DIAGNOSIS_WORKFLOW_ARN): the Diagnose handler with the workflow's payload.
 */
import { createDynamoRunStore } from '@diagnosis/core/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executionArnOf, LOCAL_WORKFLOW_ARN } from '../../../functions/diagnose/diagnosis-workflows.ts';
import { createWorkflowEventsHandler } from '../../../functions/diagnose/workflow-events.ts';
import { createObservability } from '../../../functions/lambda/observability.ts';
import { wireText } from '../../support/deepseek-server.ts';
import { localDynamoClient } from '../../support/dynamodb.ts';
import { startE2eWorld } from '../../support/e2e-world.ts';
import { e1001ScriptedConversation, httpEvent, lambdaContext } from '../../support/lambda-events.ts';
import { noConclusionDraft } from '../../support/run-fixtures.ts';

let world: Awaited<ReturnType<typeof startE2eWorld>>;
const conversation = e1001ScriptedConversation();
const dynamo = localDynamoClient();
// NOTE: the in-process stand-in starts each run's execution on this machine: only its events may change the run.
const WORKFLOW_ARN = LOCAL_WORKFLOW_ARN;
let workflowEvents: ReturnType<typeof createWorkflowEventsHandler>;
beforeAll(async () => {
  world = await startE2eWorld();
  workflowEvents = createWorkflowEventsHandler(createDynamoRunStore({ client: dynamo, tableName: world.tableName }), {
    ...createObservability('OnWorkflowStopped'),
    workflowArn: WORKFLOW_ARN,
  });
});
afterAll(async () => {
  await world?.cleanup();
  dynamo.destroy();
});

/** The EventBridge event Step Functions sends when an execution named `runId` ends with `status`. */
const workflowEvent = (runId: string, status: string, stateMachineArn = WORKFLOW_ARN) =>
  workflowEvents(
    {
      source: 'aws.states',
      'detail-type': 'Step Functions Execution Status Change',
      detail: { name: runId, status, stateMachineArn, executionArn: executionArnOf(stateMachineArn, runId) },
    },
    lambdaContext(5_000),
  );

let counter = 0;
const newId = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}`;
type Answer = { status: number; body: Record<string, unknown> };
const call = async (handler: keyof typeof world.handlers, event: unknown): Promise<Answer> => {
  const response = (await world.handlers[handler](event, lambdaContext(60_000))) as {
    statusCode: number;
    body: string;
  };
  return { status: response.statusCode, body: JSON.parse(response.body) };
};
const start = (body: Record<string, unknown>, wait?: number) =>
  call(
    'startDiagnosis',
    httpEvent({
      body: JSON.stringify(body),
      ...(wait === undefined ? {} : { queryStringParameters: { wait: String(wait) } }),
    }),
  );
const read = (runId: string) => call('getRun', httpEvent({ method: 'GET', pathParameters: { runId } }));
const cancel = (runId: string, iam?: Record<string, unknown>) =>
  call('cancelRun', httpEvent({ path: `/runs/${runId}/cancel`, pathParameters: { runId }, ...(iam ? { iam } : {}) }));
/** Polls `check` until it holds; fails the test if it never does (within about 10 s). */
const until = async (check: () => Promise<boolean>) => {
  for (let tries = 0; tries < 400; tries += 1) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('the awaited state never came');
};

/** A model round that answers only when `release` is called (or never, for a cancelled run). */
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

describe('POST /diagnoses, asynchronously', () => {
  it('answers 202 with the run id, status and links at once, and the same answer to the same request', async () => {
    const runId = newId('async');
    const blocked = blockedRound();
    world.server.script.push(blocked.entry);
    const body = { runId, sessionId: 's', enterpriseId: 'E1001', query: conversation.query };
    const first = await start(body);
    expect(first).toEqual({
      status: 202,
      body: {
        runId,
        status: 'QUEUED',
        links: { run: `/runs/${runId}`, audit: `/runs/${runId}/audit`, cancel: `/runs/${runId}/cancel` },
      },
    });
    await until(async () => (await read(runId)).body.status === 'RUNNING');
    const again = await start(body);
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ runId, status: 'RUNNING' });
    expect((await start({ ...body, query: 'another question' })).status).toBe(409);
    blocked.release();
    const done = await start(body, 25);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ runId, status: 'PUBLISHED', report: { kind: 'DIAGNOSIS' } });
    // One status word on every route (issue 32 item 15): cancelling a published run answers what GET answers.
    expect((await read(runId)).body.status).toBe('PUBLISHED');
    expect(await cancel(runId)).toMatchObject({ status: 200, body: { runId, status: 'PUBLISHED' } });
  });

  it('refuses a wait that is not a whole number of seconds up to 25', async () => {
    const answer = await start({ sessionId: 's', enterpriseId: 'E1001', query: conversation.query }, 26);
    expect(answer).toMatchObject({ status: 400, body: { error: { code: 'INVALID_QUERY_PARAMETER' } } });
  });
});

describe('GET /runs/{runId} while it runs', () => {
  it('shows rounds done, tool calls, tokens so far and the time left', async () => {
    const runId = newId('live');
    const blocked = blockedRound();
    world.server.script.push(...structuredClone(conversation.responses.slice(0, 2)), blocked.entry);
    await start({ runId, sessionId: 's', enterpriseId: 'E1001', query: conversation.query });
    await until(async () => ((await read(runId)).body.progress as { modelCalls?: number } | null)?.modelCalls === 2);
    const live = await read(runId);
    expect(live.body).toMatchObject({
      status: 'RUNNING',
      progress: { modelCalls: 2, toolCalls: 2, checks: [{ status: 'READY' }, { status: 'READY' }] },
      usage: { modelCalls: 2, toolCalls: 2 },
      cancelRequestedAt: null,
    });
    expect(live.body.timeLeftMs).toBeGreaterThan(0);
    expect((live.body.usage as { totalTokens: number }).totalTokens).toBeGreaterThan(0);
    await cancel(runId);
    await until(async () => (await read(runId)).body.status === 'CANCELLED');
    blocked.release();
  });
});

describe('cancelling a run', () => {
  it('stops a run during a model call: CANCELLED, its audit flushed and its progress kept', async () => {
    const runId = newId('cancel');
    const blocked = blockedRound();
    world.server.script.push(...structuredClone(conversation.responses.slice(0, 1)), blocked.entry);
    await start({ runId, sessionId: 's', enterpriseId: 'E1001', query: conversation.query });
    // Round 1 asked for one tool call, which ran; round 2 is now waiting on the model.
    await until(async () => ((await read(runId)).body.progress as { toolCalls?: number } | null)?.toolCalls === 1);
    const answer = await cancel(runId);
    expect(answer).toMatchObject({
      status: 202,
      body: { runId, status: 'RUNNING', cancelRequestedAt: expect.any(String) },
    });
    await until(async () => (await read(runId)).body.status === 'CANCELLED');
    const ended = await read(runId);
    expect(ended.body).toMatchObject({
      status: 'CANCELLED',
      stopReason: 'CANCELLED',
      report: { kind: 'CANCELLED' },
      progress: { modelCalls: 2, toolCalls: 1 },
    });
    const items = await world.items();
    expect(items.some((item) => item.pk === `RUN#${runId}` && item.entity === 'tool_invocation')).toBe(true);
    // The round the cancel cut short is counted in the usage but has no step: it never answered.
    expect(items.filter((item) => item.pk === `RUN#${runId}` && item.entity === 'agent_step')).toHaveLength(1);
    // After the end, a cancel changes nothing.
    expect(await cancel(runId)).toMatchObject({ status: 200, body: { status: 'CANCELLED' } });
    blocked.release();
  });

  it('stops a run whose workflow execution was stopped from the console', async () => {
    const runId = newId('console');
    const blocked = blockedRound();
    world.server.script.push(blocked.entry);
    await start({ runId, sessionId: 's', enterpriseId: 'E1001', query: conversation.query });
    await until(async () => (await read(runId)).body.status === 'RUNNING');
    expect(await workflowEvent(runId, 'ABORTED')).toEqual({ run: 'RUNNING' });
    await until(async () => (await read(runId)).body.status === 'CANCELLED');
    expect((await read(runId)).body).toMatchObject({ status: 'CANCELLED', stopReason: 'CANCELLED' });
    blocked.release();
  });

  it('closes a run as FAILED when its workflow failed or timed out before finishing it', async () => {
    const store = createDynamoRunStore({ client: dynamo, tableName: world.tableName });
    for (const status of ['FAILED', 'TIMED_OUT'] as const) {
      const runId = newId('wf-failed');
      await store.queueRun({ runId, sessionId: 's', enterpriseId: 'E1001', query: 'q', continueSession: false });
      expect(await workflowEvent(runId, status)).toEqual({ run: 'FAILED' });
      expect((await read(runId)).body).toMatchObject({ status: 'FAILED', errorCode: 'WORKFLOW_FAILED' });
    }
  });

  it('ignores events of other state machines, other statuses and other shapes', async () => {
    const runId = newId('foreign');
    const store = createDynamoRunStore({ client: dynamo, tableName: world.tableName });
    await store.queueRun({ runId, sessionId: 's', enterpriseId: 'E1001', query: 'q', continueSession: false });
    for (const status of ['ABORTED', 'FAILED', 'TIMED_OUT'] as const) {
      expect(await workflowEvent(runId, status, `${WORKFLOW_ARN}-other`)).toEqual({ run: null });
    }
    expect(await workflowEvent(runId, 'SUCCEEDED')).toEqual({ run: null });
    const other = { source: 'aws.states', 'detail-type': 'Step Functions Execution Status Change', detail: {} };
    expect(await workflowEvents(other, lambdaContext(5_000))).toEqual({ run: null });
    expect((await read(runId)).body.status).toBe('QUEUED');
    expect(await cancel('no-such-run')).toMatchObject({ status: 404, body: { error: { code: 'RUN_NOT_FOUND' } } });
  });
});
