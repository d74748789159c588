/**
 * PagerDuty note write-back and the Teams Workflows card through the real delivery queue handler: runs and delivery
 * records on DynamoDB Local, PagerDuty's REST API and the Teams webhook as loopback HTTP receivers. A run a PagerDuty
 * webhook started gets a note on its incident (`POST /incidents/{id}/notes`, `Authorization: Token token=…`, `From`);
 * any other run is not sent there at all; a failure follows the other destinations' retry and dead-letter rules.
 */
import { SNSClient } from '@aws-sdk/client-sns';
import { ChangeMessageVisibilityCommand, SQSClient } from '@aws-sdk/client-sqs';
import { createDynamoRunStore, type RunStore } from '@diagnosis/core/store';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MAX_DELIVERY_RECEIVES } from '../../../functions/delivery/delivery-metric-names.ts';
import { createDeliveryQueueHandler } from '../../../functions/delivery/delivery-queue-handler.ts';
import { createDynamoDeliveryStore, type DeliveryStore } from '../../../functions/delivery/delivery-store.ts';
import { createDestinationSender } from '../../../functions/delivery/destination-senders.ts';
import { createObservability } from '../../../functions/lambda/observability.ts';
import { deliveredEnvelope, QUEUE_URL, sqsEvent, sqsRecord } from '../../support/delivery-events.ts';
import { createTestTable, localDynamoClient } from '../../support/dynamodb.ts';
import { outcomeOf } from '../../support/finished-runs.ts';
import { lambdaContext } from '../../support/lambda-events.ts';
import { type LoopbackReceiver, startLoopbackReceiver } from '../../support/loopback-receiver.ts';
import { T0 } from '../../support/run-fixtures.ts';

const client = localDynamoClient();
let drop: () => Promise<void>;
let runs: RunStore;
let deliveries: DeliveryStore;
let receiver: LoopbackReceiver;
const sqs = mockClient(SQSClient);
const API_KEY = 'u+pd_rest_key_0123456789';
const FROM = 'oncall-bot@example.com';

beforeAll(async () => {
  const table = await createTestTable(client);
  drop = table.drop;
  runs = createDynamoRunStore({ client, tableName: table.tableName, now: () => T0 });
  deliveries = createDynamoDeliveryStore({ client, tableName: table.tableName });
  receiver = await startLoopbackReceiver();
});
afterAll(async () => {
  await receiver.close();
  await drop();
});
beforeEach(() => {
  sqs.reset();
  sqs.on(ChangeMessageVisibilityCommand).resolves({});
  receiver.received.length = 0;
});

function deliver(runId: string) {
  const handler = createDeliveryQueueHandler(
    {
      runs,
      deliveries,
      destinations: new Map([
        [
          'E1001',
          [
            { id: 'pd-notes', type: 'pagerduty' as const, apiKey: API_KEY, from: FROM },
            { id: 'teams', type: 'teams' as const, url: receiver.url(`/teams/${runId}`) },
          ],
        ],
      ]),
      send: createDestinationSender({
        sns: new SNSClient({ region: 'eu-west-1' }),
        timeoutMs: 2_000,
        now: () => T0,
        pagerDutyApiUrl: receiver.url(''),
      }),
      now: () => T0,
      leaseMs: 60_000,
    },
    {
      ...createObservability('DeliverResults', () => undefined),
      sqs: new SQSClient({ region: 'eu-west-1' }),
      queueUrl: QUEUE_URL,
      maxReceives: MAX_DELIVERY_RECEIVES,
    },
  );
  return (body: string, receiveCount: number) =>
    handler(sqsEvent(sqsRecord(body, receiveCount, `msg-${runId}`)), lambdaContext(30_000, 'DeliverResults'));
}

async function endedRun(runId: string, trigger?: { source: 'pagerduty' | 'cloudwatch'; incidentKey: string }) {
  await runs.queueRun({
    runId,
    sessionId: `s-${runId}`,
    enterpriseId: 'E1001',
    query: '下单失败',
    continueSession: false,
    ...(trigger === undefined
      ? {}
      : { trigger: { ...trigger, eventId: 'ev-1', title: 'payment 5xx', startedAt: new Date(T0).toISOString() } }),
  });
  await runs.claimQueuedRun(runId, T0 + 60_000);
  await runs.completeRun(runId, outcomeOf('PUBLISHED'));
  const run = await runs.getRun(runId);
  if (run === null || run.status === 'QUEUED' || run.status === 'RUNNING') throw new Error('not ended');
  return { ...run, status: run.status };
}

describe('PagerDuty and Teams destinations', () => {
  it('adds a note to the PagerDuty incident that started the run, and posts the Teams card', async () => {
    const run = await endedRun('run-pd-1', { source: 'pagerduty', incidentKey: 'Q1R2DLCB21K7JS' });
    expect(await deliver(run.runId)(JSON.stringify(deliveredEnvelope(run)), 1)).toEqual({ batchItemFailures: [] });
    const note = receiver.received.find((request) => request.path === '/incidents/Q1R2DLCB21K7JS/notes');
    expect(note?.headers.authorization).toBe(`Token token=${API_KEY}`);
    expect(note?.headers.from).toBe(FROM);
    expect(note?.headers['content-type']).toBe('application/json');
    expect(note?.headers.accept).toBe('application/vnd.pagerduty+json;version=2');
    expect(JSON.parse(note?.body ?? '{}').note.content).toContain('AI-generated');
    const teams = receiver.received.find((request) => request.path === `/teams/${run.runId}`);
    expect(JSON.parse(teams?.body ?? '{}').attachments[0].contentType).toBe('application/vnd.microsoft.card.adaptive');
    expect((await deliveries.listDeliveries(run)).map((record) => [record.destinationId, record.status])).toEqual([
      ['pd-notes', 'DELIVERED'],
      ['teams', 'DELIVERED'],
    ]);
  });

  it('sends a run another source started nowhere near PagerDuty (no request, no record)', async () => {
    const run = await endedRun('run-cw-1', { source: 'cloudwatch', incidentKey: 'Q1R2DLCB21K7JS' });
    expect(await deliver(run.runId)(JSON.stringify(deliveredEnvelope(run)), 1)).toEqual({ batchItemFailures: [] });
    expect(receiver.received.map((request) => request.path)).toEqual([`/teams/${run.runId}`]);
    expect((await deliveries.listDeliveries(run)).map((record) => record.destinationId)).toEqual(['teams']);
  });

  it('retries a refused note like any destination, and dead-letters it after the last receive', async () => {
    const run = await endedRun('run-pd-2', { source: 'pagerduty', incidentKey: 'PT4KHLK' });
    receiver.answer('/incidents/PT4KHLK/notes', { status: 429 });
    const send = deliver(run.runId);
    const body = JSON.stringify(deliveredEnvelope(run));
    expect(await send(body, 1)).toEqual({ batchItemFailures: [{ itemIdentifier: `msg-${run.runId}` }] });
    expect((await deliveries.listDeliveries(run)).find((record) => record.destinationId === 'pd-notes')).toMatchObject({
      status: 'RETRYING',
      lastError: 'HTTP_429',
    });
    await send(body, MAX_DELIVERY_RECEIVES);
    expect((await deliveries.listDeliveries(run)).find((record) => record.destinationId === 'pd-notes')).toMatchObject({
      status: 'DEAD_LETTERED',
    });
    // The Teams card went once, on the first receive, and was not sent again.
    expect(receiver.received.filter((request) => request.path === `/teams/${run.runId}`)).toHaveLength(1);
  });
});
