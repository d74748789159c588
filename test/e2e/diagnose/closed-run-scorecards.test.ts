/**
 * Issue 24: "a process scorecard for every run" — also for a run its own invocation never completed. Each path that
 * closes a run — the sweeper (an abandoned run), a workflow's failure event (a QUEUED run, or a RUNNING one no
 * invocation can still hold), a cancel of a run that never ran, a second invocation that finds the run abandoned, a
 * start whose workflow could not be started — stores a scorecard in the write that closes it, computed from the
 * stored audit, and it equals the one anyone recomputes from the stored records. Through the real handlers (sweeper,
 * workflow events, CancelRun, GetRun) on DynamoDB Local; the run that dies is a real run through the service whose
 * table went away at its completion, after its audit was flushed.
 * NOTE: over 300 lines on purpose: one rule (a scorecard for every closed run) checked on each path that closes a run,
 * over one world.
 */
import {
  buildProcessScorecard,
  type DiagnosisWorkflow,
  executeDiagnosisRun,
  type ProcessScorecard,
  type RunStore,
  type StoredRun,
  startDiagnosis,
} from '@diagnosis/core';
import {
  createDynamoStores,
  type DynamoStores,
  type StoredStep,
  type StoredToolInvocation,
} from '@diagnosis/core/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCancelRunHandler } from '../../../functions/api/cancel-handler.ts';
import { createGetRunHandler } from '../../../functions/api/run-queries.ts';
import { executionArnOf } from '../../../functions/diagnose/diagnosis-workflows.ts';
import { createSweepHandler } from '../../../functions/diagnose/sweep-handler.ts';
import { createWorkflowEventsHandler } from '../../../functions/diagnose/workflow-events.ts';
import { createObservability } from '../../../functions/lambda/observability.ts';
import { createTestTable, localDynamoClient } from '../../support/dynamodb.ts';
import { createFakeEvidence } from '../../support/fake-evidence.ts';
import { httpEvent, lambdaContext } from '../../support/lambda-events.ts';
import { draftAnswer, envelope, LOGS_INPUT, supportedDraft } from '../../support/run-fixtures.ts';
import { scriptedModel, textRound, toolRound } from '../../support/scripted-model.ts';

const WORKFLOW_ARN = 'arn:aws:states:eu-west-1:123456789012:stateMachine:diagnosis-test-DiagnosisWorkflow';
const FLUSH_RESERVE_MS = 100;
const dynamo = localDynamoClient();
let table: Awaited<ReturnType<typeof createTestTable>>;
const clock = { now: Date.parse('2026-11-30T06:10:00Z') };
const now = () => clock.now;
let store: DynamoStores;
const quiet = (name: string) => createObservability(name, () => undefined);

beforeAll(async () => {
  table = await createTestTable(dynamo);
  store = createDynamoStores({ client: dynamo, tableName: table.tableName, now });
});
afterAll(async () => {
  await table?.drop();
  dynamo.destroy();
});

let sequence = 0;
const newRequest = () => {
  sequence += 1;
  return {
    runId: `run-closed-${sequence}-${Math.random().toString(36).slice(2, 8)}`,
    sessionId: 's',
    enterpriseId: 'E1001',
    query: 'E1001 的订单从 14:05 开始失败，为什么？',
    continueSession: false,
  };
};

/** The service's dependencies for a scripted run of three rounds: a call, its duplicate and a refused one, a Draft. */
function serviceDeps(createStore: () => DynamoStores) {
  const model = scriptedModel([
    toolRound([{ id: 'call-1', name: 'query_logs', input: envelope(LOGS_INPUT) }]),
    toolRound([
      {
        id: 'call-2',
        name: 'query_logs',
        input: envelope(LOGS_INPUT, { tool_call_id: 'call-1', evaluation: 'GAINED' }),
      },
      { id: 'call-3', name: 'query_mysql', input: { input: { query_name: 1 } } },
    ]),
    textRound(draftAnswer(supportedDraft(['call-1']))),
  ]);
  return {
    model,
    evidence: createFakeEvidence().evidence,
    createStore,
    flushReserveMs: FLUSH_RESERVE_MS,
    limits: { finalRoundReserveMs: 100 },
    now,
  };
}

/**
 * A run whose invocation got to its completion with its whole audit flushed and then lost the table (its completion
 * and the close after it both fail): it stays RUNNING, owned by `executionArn`, with nothing closing it.
 */
async function runThatDied(executionArn?: string): Promise<StoredRun> {
  const request = newRequest();
  const dying = (): DynamoStores => ({
    ...createDynamoStores({ client: dynamo, tableName: table.tableName, now }),
    completeRun: () => Promise.reject(new Error('socket hang up')),
  });
  await expect(
    executeDiagnosisRun(
      { ...request, remainingMs: 60_000, ...(executionArn === undefined ? {} : { executionArn }) },
      serviceDeps(dying),
    ),
  ).rejects.toThrow('socket hang up');
  const run = await store.getRun(request.runId);
  expect(run?.status).toBe('RUNNING');
  if (run === null) throw new Error('no run');
  return run;
}

/** Past the run's deadline, its flush reserve and the abandonment margin: no invocation can hold it any more. */
const afterEveryDeadline = () => {
  clock.now += 10 * 60_000;
};

async function recomputed(runId: string): Promise<{ run: StoredRun; card: ProcessScorecard }> {
  const run = await store.getRun(runId);
  if (run === null) throw new Error('no run');
  const { records } = await store.listRunRecords(runId, { limit: 100 });
  const steps = records.filter((record): record is StoredStep => record.entity === 'agent_step');
  const tools = records.filter((record): record is StoredToolInvocation => record.entity === 'tool_invocation');
  return { run, card: buildProcessScorecard(run, steps, tools) };
}

/** The run's stored scorecard: present, equal to one recomputed from the stored audit, and what GET /runs/{id} shows. */
async function expectStoredScorecard(runId: string): Promise<ProcessScorecard> {
  const { run, card } = await recomputed(runId);
  expect(run.processScorecard).not.toBeNull();
  expect(run.processScorecard).toEqual(card);
  const get = createGetRunHandler(store, { ...quiet('GetRun'), policy: null });
  const response = (await get(
    httpEvent({ method: 'GET', path: `/runs/${runId}`, pathParameters: { runId } }) as never,
    lambdaContext(10_000),
  )) as { statusCode: number; body: string };
  expect(response.statusCode).toBe(200);
  expect(JSON.parse(response.body).processScorecard).toEqual(card);
  return card;
}

/** What the audit of {@link runThatDied} holds: three rounds, one executed call, a duplicate and an invalid one. */
const DIED_RUN_CARD = {
  rounds: 3,
  judgeCalls: 0,
  toolCalls: {
    total: 3,
    executed: 1,
    refused: 2,
    redundant: 1,
    refusedByCode: { DUPLICATE_CALL: 1, INVALID_INPUT: 1 },
  },
  // The run closed with no Draft: nothing answered, nothing removed.
  answeredWithoutTools: false,
  guards: { draftItems: null, removedItems: null },
};

describe('the process scorecard of a run closed by another path', () => {
  it('is stored by the sweeper when it closes an abandoned run, from the audit the dead invocation left', async () => {
    const died = await runThatDied();
    afterEveryDeadline();
    const sweep = createSweepHandler({ store, rule: { flushReserveMs: FLUSH_RESERVE_MS }, now }, quiet('SweepRuns'));

    const report = await sweep({}, lambdaContext(60_000));

    expect(report.closed).toBeGreaterThanOrEqual(1);
    expect(await store.getRun(died.runId)).toMatchObject({ status: 'FAILED', errorCode: 'RUN_ABANDONED' });
    const card = await expectStoredScorecard(died.runId);
    expect(card).toMatchObject(DIED_RUN_CARD);
    // The run kept its deadline, so the card says how much time it had left when it stopped.
    expect(card.timeMs.leftAtEnd).toBeGreaterThan(0);
  });

  it('is stored when a workflow failure event closes a RUNNING run no invocation can still hold', async () => {
    const executionArn = executionArnOf(WORKFLOW_ARN, `exec-${sequence + 1}`);
    const died = await runThatDied(executionArn);
    afterEveryDeadline();
    const events = createWorkflowEventsHandler(store, {
      ...quiet('OnWorkflowStopped'),
      workflowArn: WORKFLOW_ARN,
      now,
    });

    const outcome = await events(
      {
        source: 'aws.states',
        'detail-type': 'Step Functions Execution Status Change',
        detail: {
          executionArn,
          stateMachineArn: WORKFLOW_ARN,
          name: died.runId,
          status: 'FAILED',
          input: JSON.stringify({ runId: died.runId }),
        },
      },
      lambdaContext(10_000),
    );

    expect(outcome).toEqual({ run: 'FAILED' });
    expect(await expectStoredScorecard(died.runId)).toMatchObject(DIED_RUN_CARD);
  });

  it('is stored when a workflow failure event closes a QUEUED run, as the card of a run that never ran', async () => {
    const request = newRequest();
    const executionArn = executionArnOf(WORKFLOW_ARN, request.runId);
    await store.queueRun(request, { executionArn });
    const events = createWorkflowEventsHandler(store, {
      ...quiet('OnWorkflowStopped'),
      workflowArn: WORKFLOW_ARN,
      now,
    });

    await events(
      {
        source: 'aws.states',
        'detail-type': 'Step Functions Execution Status Change',
        detail: { executionArn, stateMachineArn: WORKFLOW_ARN, name: request.runId, status: 'TIMED_OUT' },
      },
      lambdaContext(10_000),
    );

    expect(await store.getRun(request.runId)).toMatchObject({ status: 'FAILED', errorCode: 'WORKFLOW_FAILED' });
    expect(await expectStoredScorecard(request.runId)).toMatchObject({
      rounds: 0,
      toolCalls: { total: 0, executed: 0 },
      answeredWithoutTools: false,
      tokens: { total: 0 },
    });
  });

  it('is stored by POST /runs/{id}/cancel when it cancels a run that never ran', async () => {
    const request = newRequest();
    await store.queueRun(request);
    const workflow: Pick<DiagnosisWorkflow, 'stop'> = { stop: async () => undefined };
    const cancel = createCancelRunHandler({ store, workflow }, { ...quiet('CancelRun'), policy: null });

    const response = (await cancel(
      httpEvent({ path: `/runs/${request.runId}/cancel`, pathParameters: { runId: request.runId } }) as never,
      lambdaContext(10_000),
    )) as { statusCode: number };

    expect(response.statusCode).toBe(200);
    expect(await store.getRun(request.runId)).toMatchObject({ status: 'CANCELLED' });
    expect(await expectStoredScorecard(request.runId)).toMatchObject({ rounds: 0, toolCalls: { total: 0 } });
  });

  it('is stored when a second invocation of the runId closes the abandoned run', async () => {
    const died = await runThatDied();
    afterEveryDeadline();

    const replay = await executeDiagnosisRun(
      {
        runId: died.runId,
        sessionId: died.sessionId,
        enterpriseId: died.enterpriseId,
        query: died.query,
        continueSession: false,
        remainingMs: 60_000,
      },
      serviceDeps(() => createDynamoStores({ client: dynamo, tableName: table.tableName, now })),
    );

    expect(replay.status).toBe('FAILED');
    expect(await store.getRun(died.runId)).toMatchObject({ status: 'FAILED', errorCode: 'RUN_ABANDONED' });
    expect(await expectStoredScorecard(died.runId)).toMatchObject(DIED_RUN_CARD);
  });

  it('is stored when the workflow of an accepted run could not be started', async () => {
    const request = newRequest();
    const workflow: DiagnosisWorkflow = {
      executionArnOf: (runId) => executionArnOf(WORKFLOW_ARN, runId),
      start: () => Promise.reject(Object.assign(new Error('throttled'), { name: 'ThrottlingException' })),
      stop: async () => undefined,
    };

    await startDiagnosis(request, { store, workflow }).catch(() => undefined);

    expect(await store.getRun(request.runId)).toMatchObject({ status: 'FAILED' });
    expect(await expectStoredScorecard(request.runId)).toMatchObject({ rounds: 0, toolCalls: { total: 0 } });
  });

  it('never replaces the scorecard its own invocation stored: a later close of the completed run changes nothing', async () => {
    const request = newRequest();
    const executionArn = executionArnOf(WORKFLOW_ARN, request.runId);
    await executeDiagnosisRun(
      { ...request, remainingMs: 60_000, executionArn },
      serviceDeps(() => createDynamoStores({ client: dynamo, tableName: table.tableName, now })),
    );
    const completed = await store.getRun(request.runId);
    expect(completed?.status).toBe('SUCCEEDED');
    afterEveryDeadline();
    const events = createWorkflowEventsHandler(store, {
      ...quiet('OnWorkflowStopped'),
      workflowArn: WORKFLOW_ARN,
      now,
    });
    const sweep = createSweepHandler({ store, rule: { flushReserveMs: FLUSH_RESERVE_MS }, now }, quiet('SweepRuns'));

    await events(
      {
        source: 'aws.states',
        'detail-type': 'Step Functions Execution Status Change',
        detail: { executionArn, stateMachineArn: WORKFLOW_ARN, name: request.runId, status: 'FAILED' },
      },
      lambdaContext(10_000),
    );
    await sweep({}, lambdaContext(60_000));

    expect(await store.getRun(request.runId)).toEqual(completed);
    expect((await expectStoredScorecard(request.runId)).guards).toMatchObject({ draftItems: 2, removedItems: 0 });
  });

  it('is never stored on another execution’s run: a failure event of a stray execution changes nothing', async () => {
    const died = await runThatDied(executionArnOf(WORKFLOW_ARN, `owner-${sequence + 1}`));
    afterEveryDeadline();
    const events = createWorkflowEventsHandler(
      store as Pick<RunStore, 'getRun' | 'requestCancel' | 'claimQueuedRun' | 'completeRun' | 'listRunRecords'>,
      {
        ...quiet('OnWorkflowStopped'),
        workflowArn: WORKFLOW_ARN,
        now,
      },
    );

    await events(
      {
        source: 'aws.states',
        'detail-type': 'Step Functions Execution Status Change',
        detail: {
          executionArn: executionArnOf(WORKFLOW_ARN, 'stray'),
          stateMachineArn: WORKFLOW_ARN,
          name: 'stray',
          status: 'FAILED',
          input: JSON.stringify({ runId: died.runId }),
        },
      },
      lambdaContext(10_000),
    );

    expect(await store.getRun(died.runId)).toMatchObject({ status: 'RUNNING', processScorecard: null });
  });
});
