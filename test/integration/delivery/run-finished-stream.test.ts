/**
 * Every way a run ends emits exactly one `Diagnosis Run Finished`, whatever closed it: the real store's lifecycle
 * writes on DynamoDB Local with a stream, the stream's records read back as Lambda delivers them, the real stream
 * handler. EventBridge has no local engine here: `aws-sdk-client-mock` stands in for it and records each PutEvents.
 */
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { cancelDiagnosis, closeAbandonedRun, closeQueuedRun, type RunOutcome } from '@diagnosis/core';
import { createDynamoRunStore, type RunStore } from '@diagnosis/core/store';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isRunFinishing } from '../../../functions/delivery/publish-run-finished.ts';
import { envelopeOf, type RunFinishedDetail } from '../../../functions/delivery/run-finished-event.ts';
import { createRunFinishedStreamHandler } from '../../../functions/delivery/run-finished-stream-handler.ts';
import { createObservability } from '../../../functions/lambda/observability.ts';
import { localDynamoClient } from '../../support/dynamodb.ts';
import { outcomeOf } from '../../support/finished-runs.ts';
import { lambdaContext } from '../../support/lambda-events.ts';
import { resultEventValidator } from '../../support/result-event-schema.ts';
import { T0 } from '../../support/run-fixtures.ts';
import { createStreamTable, type StreamTable } from '../../support/table-stream.ts';

const client = localDynamoClient();
let table: StreamTable;
let store: RunStore;
const events = mockClient(EventBridgeClient);
const validate = resultEventValidator();
const silent = () => createObservability('PublishRunFinished', () => undefined);

beforeAll(async () => {
  table = await createStreamTable(client);
  store = createDynamoRunStore({ client, tableName: table.tableName, now: () => T0 });
});
afterAll(async () => {
  await table.drop();
});
beforeEach(async () => {
  events.reset();
  events.on(PutEventsCommand).callsFake((input: { Entries: unknown[] }) => ({
    FailedEntryCount: 0,
    Entries: input.Entries.map((_, index) => ({ EventId: `event-${index}` })),
  }));
  await table.readNewRecords(); // start each test after what the previous ones wrote
});

const handler = () =>
  createRunFinishedStreamHandler(
    {
      events: new EventBridgeClient({ region: 'eu-west-1' }),
      busName: 'diagnosis-results',
      event: { apiUrl: 'https://api.example.com' },
    },
    silent(),
  );

function putDetails(): RunFinishedDetail[] {
  return events
    .commandCalls(PutEventsCommand)
    .flatMap((call) => call.args[0].input.Entries ?? [])
    .map((entry) => {
      expect(entry).toMatchObject({
        EventBusName: 'diagnosis-results',
        Source: 'diagnosis-agent',
        DetailType: 'Diagnosis Run Finished',
      });
      return JSON.parse(entry.Detail ?? '{}') as RunFinishedDetail;
    });
}

async function queue(runId: string) {
  await store.queueRun({ runId, sessionId: 's-1', enterpriseId: 'E1001', query: '下单失败', continueSession: false });
}

async function deliverStream() {
  const event = await table.readNewRecords();
  return handler()(event, lambdaContext(10_000, 'PublishRunFinished'));
}

describe('createRunFinishedStreamHandler', () => {
  it.each([
    ['PUBLISHED', 'SUCCEEDED'],
    ['FALLBACK', 'FALLBACK'],
    ['FAILED', 'FAILED'],
  ] as const)(
    'emits one %s event when the Diagnose invocation completes a run (completeRun)',
    async (kind, runStatus) => {
      const runId = `run-complete-${kind.toLowerCase()}`;
      await queue(runId);
      await store.claimQueuedRun(runId, T0 + 60_000);
      await store.completeRun(runId, outcomeOf(kind) as RunOutcome);
      const answer = await deliverStream();
      expect(answer).toEqual({ batchItemFailures: [] });
      const details = putDetails();
      expect(details).toHaveLength(1);
      expect(details[0]).toMatchObject({ runId, status: kind, runStatus, enterpriseId: 'E1001', trigger: null });
      const envelope = envelopeOf(
        { source: 'diagnosis-agent', detailType: 'Diagnosis Run Finished', detail: details[0] as RunFinishedDetail },
        {
          id: 'e',
          time: '2026-11-30T06:10:31Z',
          account: '123456789012',
          region: 'eu-west-1',
        },
      );
      expect(validate(envelope)).toBe(true);
    },
  );

  it('emits one CANCELLED event when a QUEUED run is cancelled (requestCancel ends it at once)', async () => {
    await queue('run-cancel-queued');
    await cancelDiagnosis('run-cancel-queued', { store });
    await deliverStream();
    expect(putDetails().map((detail) => [detail.runId, detail.status])).toEqual([['run-cancel-queued', 'CANCELLED']]);
  });

  it('emits nothing for a RUNNING run flagged for cancel, then one CANCELLED event when its invocation ends it', async () => {
    await queue('run-cancel-running');
    await store.claimQueuedRun('run-cancel-running', T0 + 60_000);
    await cancelDiagnosis('run-cancel-running', { store });
    await deliverStream();
    expect(putDetails()).toEqual([]);
    await store.completeRun('run-cancel-running', outcomeOf('CANCELLED') as RunOutcome);
    await deliverStream();
    expect(putDetails().map((detail) => detail.status)).toEqual(['CANCELLED']);
  });

  it('emits one FAILED event when a workflow failure closes a QUEUED run (closeQueuedRun)', async () => {
    await queue('run-wf-queued');
    await closeQueuedRun('run-wf-queued', 'WORKFLOW_FAILED', store, { now: () => T0 });
    await deliverStream();
    expect(putDetails().map((detail) => [detail.runId, detail.status, detail.errorCode])).toEqual([
      ['run-wf-queued', 'FAILED', 'WORKFLOW_FAILED'],
    ]);
  });

  it('emits one FAILED event when the sweeper closes an abandoned QUEUED or RUNNING run (closeAbandonedRun)', async () => {
    await queue('run-swept-queued');
    await queue('run-swept-running');
    await store.claimQueuedRun('run-swept-running', T0 + 60_000);
    for (const runId of ['run-swept-queued', 'run-swept-running']) {
      const run = await store.getRun(runId);
      if (run === null) throw new Error('no run');
      expect(await closeAbandonedRun(store, run, T0 + 3_600_000)).toBe(true);
    }
    await deliverStream();
    expect(
      putDetails()
        .map((detail) => [detail.runId, detail.status, detail.errorCode])
        .sort(),
    ).toEqual([
      ['run-swept-queued', 'FAILED', 'RUN_ABANDONED'],
      ['run-swept-running', 'FAILED', 'RUN_ABANDONED'],
    ]);
  });

  it('emits nothing when a run is queued or started, and once only when it is closed again (completeRun, closeQueuedRun, closeAbandonedRun, cancel)', async () => {
    await queue('run-twice');
    await store.claimQueuedRun('run-twice', T0 + 60_000);
    await store.completeRun('run-twice', outcomeOf('FAILED') as RunOutcome);
    await expect(store.completeRun('run-twice', outcomeOf('PUBLISHED') as RunOutcome)).rejects.toThrow();
    await closeQueuedRun('run-twice', 'WORKFLOW_FAILED', store, { now: () => T0 });
    const ended = await store.getRun('run-twice');
    if (ended !== null) expect(await closeAbandonedRun(store, ended, T0 + 3_600_000)).toBe(false);
    await cancelDiagnosis('run-twice', { store });
    await deliverStream();
    expect(putDetails().map((detail) => [detail.runId, detail.status])).toEqual([['run-twice', 'FAILED']]);
  });

  // Issue 24: every run's process metrics, whoever ended it: a cancel of a QUEUED run, a workflow's failure, the
  // sweeper and the run's own invocation alike, each once, under its outcome, with its stored scorecard's figures.
  it('emits the process metrics of every run that ended, from its stored scorecard', async () => {
    for (const runId of ['run-m-cancelled', 'run-m-workflow', 'run-m-swept', 'run-m-completed']) await queue(runId);
    await cancelDiagnosis('run-m-cancelled', { store });
    await closeQueuedRun('run-m-workflow', 'WORKFLOW_FAILED', store, { now: () => T0 });
    for (const runId of ['run-m-swept', 'run-m-completed']) await store.claimQueuedRun(runId, T0 + 60_000);
    const swept = await store.getRun('run-m-swept');
    if (swept === null) throw new Error('no run');
    expect(await closeAbandonedRun(store, swept, T0 + 3_600_000)).toBe(true);
    const card = {
      ...(await store.getRun('run-m-swept'))?.processScorecard,
      timeMs: { model: 7, judge: 0, tools: 3, span: 10, leftAtEnd: 1 },
    };
    await store.completeRun('run-m-completed', {
      ...(outcomeOf('PUBLISHED') as RunOutcome),
      processScorecard: card as never,
    });
    const lines: string[] = [];
    const event = await table.readNewRecords();
    const publish = createRunFinishedStreamHandler(
      { events: new EventBridgeClient({ region: 'eu-west-1' }), busName: 'diagnosis-results' },
      createObservability('PublishRunFinished', (line) => lines.push(line)),
    );
    await publish(event, lambdaContext(10_000, 'PublishRunFinished'));
    const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => '_aws' in line);
    const processRecords = records.filter((record) => 'RedundantToolCalls' in record);
    expect(processRecords.map((record) => record.outcome).sort()).toEqual([
      'CANCELLED',
      'FAILED',
      'FAILED',
      'PUBLISHED',
    ]);
    expect(processRecords.find((record) => record.outcome === 'PUBLISHED')).toMatchObject({
      ModelTime: 7,
      ToolTime: 3,
    });
    for (const record of processRecords) {
      expect(record).toMatchObject({ RedundantToolCalls: 0, AnsweredWithoutTools: expect.any(Number) });
    }
    for (const runId of ['run-m-cancelled', 'run-m-workflow', 'run-m-swept']) {
      expect((await store.getRun(runId))?.processScorecard).toMatchObject({ version: 1 });
    }
  });

  it('reports the records whose events EventBridge did not take, so the stream retries only those', async () => {
    await queue('run-put-ok');
    await queue('run-put-refused');
    await cancelDiagnosis('run-put-ok', { store });
    await cancelDiagnosis('run-put-refused', { store });
    const event = await table.readNewRecords();
    // NOTE: the store writes other items too (the open-runs index, leases): only run items that end emit.
    const finishing = event.Records.filter(isRunFinishing);
    expect(finishing.map((record) => record.dynamodb?.Keys?.pk?.S)).toEqual(['RUN#run-put-ok', 'RUN#run-put-refused']);
    events.reset();
    events.on(PutEventsCommand).resolves({
      FailedEntryCount: 1,
      Entries: [{ EventId: 'ok' }, { ErrorCode: 'InternalFailure', ErrorMessage: 'x' }],
    });
    const answer = await handler()(event, lambdaContext(10_000, 'PublishRunFinished'));
    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: finishing[1]?.dynamodb?.SequenceNumber }] });
    events.reset();
    events.on(PutEventsCommand).rejects(new Error('endpoint down'));
    const down = await handler()(event, lambdaContext(10_000, 'PublishRunFinished'));
    expect(down?.batchItemFailures).toHaveLength(2);
  });
});
