/**
 * Delivery through the real queue handler: runs and delivery records on DynamoDB Local, Slack and the webhook as
 * loopback HTTP receivers. SNS and SQS have no local engine here: `aws-sdk-client-mock` stands in for them (SNS's
 * Publish, SQS's ChangeMessageVisibility for the backoff); SQS's redelivery is each receive handed to the handler
 * again with the next `ApproximateReceiveCount`, as Lambda's event source mapping does.
 * NOTE: over 300 lines on purpose: delivery through the real queue handler with its loopback receivers and stand-ins
 * built once; the reveal case reuses them.
 */
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { ChangeMessageVisibilityCommand, SQSClient } from '@aws-sdk/client-sqs';
import { createMaskingSession, DEVELOPMENT_MASKING_SECRET } from '@diagnosis/core';
import { createDynamoAuditWriter, createDynamoRunStore, type RunStore } from '@diagnosis/core/store';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createGetRunHandler } from '../../../functions/api/run-queries.ts';
import { MAX_DELIVERY_RECEIVES } from '../../../functions/delivery/delivery-metric-names.ts';
import { createDeliveryQueueHandler } from '../../../functions/delivery/delivery-queue-handler.ts';
import { createDynamoDeliveryStore, type DeliveryStore } from '../../../functions/delivery/delivery-store.ts';
import { createDestinationSender } from '../../../functions/delivery/destination-senders.ts';
import type { ResolvedDestination } from '../../../functions/delivery/destinations.ts';
import type { DeliveryReveal } from '../../../functions/delivery/reveal-run-result.ts';
import type { SlackMessage } from '../../../functions/delivery/slack-message.ts';
import { verifyWebhookSignature } from '../../../functions/delivery/webhook-request.ts';
import { createObservability } from '../../../functions/lambda/observability.ts';
import { sealNewPseudonyms } from '../../../packages/core/src/tools/masking/pseudonym-map.ts';
import { blockKitViolations } from '../../support/block-kit.ts';
import { deliveredEnvelope, QUEUE_URL, sqsEvent, sqsRecord } from '../../support/delivery-events.ts';
import { createTestTable, localDynamoClient } from '../../support/dynamodb.ts';
import { type FinishedKind, outcomeOf } from '../../support/finished-runs.ts';
import { httpEvent, lambdaContext } from '../../support/lambda-events.ts';
import { type LoopbackReceiver, startLoopbackReceiver } from '../../support/loopback-receiver.ts';
import { resultEventValidator } from '../../support/result-event-schema.ts';
import { supportedDraft, T0 } from '../../support/run-fixtures.ts';

const client = localDynamoClient();
let drop: () => Promise<void>;
let tableName: string;
let runs: RunStore;
let deliveries: DeliveryStore;
let receiver: LoopbackReceiver;
const sns = mockClient(SNSClient);
const sqs = mockClient(SQSClient);
const SIGNING_KEY = 'whsec-E1001-itsm';
const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:diagnosis-agent-ci-DeliveryE1001OpsMail';
let clock = T0;

beforeAll(async () => {
  const table = await createTestTable(client);
  drop = table.drop;
  tableName = table.tableName;
  runs = createDynamoRunStore({ client, tableName: table.tableName, now: () => clock });
  deliveries = createDynamoDeliveryStore({ client, tableName: table.tableName });
  receiver = await startLoopbackReceiver();
});
afterAll(async () => {
  await receiver.close();
  await drop();
});
beforeEach(() => {
  sns.reset();
  sqs.reset();
  sns.on(PublishCommand).resolves({ MessageId: 'sns-1' });
  sqs.on(ChangeMessageVisibilityCommand).resolves({});
  receiver.received.length = 0;
});

function destinationsOf(runId: string): ResolvedDestination[] {
  return [
    { id: 'oncall', type: 'slack', url: receiver.url(`/slack/${runId}`) },
    { id: 'itsm', type: 'webhook', url: receiver.url(`/hook/${runId}`), signingKey: SIGNING_KEY },
    { id: 'ops-mail', type: 'sns', topicArn: TOPIC },
  ];
}

function handlerFor(runId: string, timeoutMs = 2_000, extra: { reveal?: DeliveryReveal; logs?: string[] } = {}) {
  const deps = {
    ...(extra.reveal === undefined ? {} : { reveal: extra.reveal }),
    runs,
    deliveries,
    destinations: new Map([['E1001', destinationsOf(runId)]]),
    send: createDestinationSender({ sns: new SNSClient({ region: 'eu-west-1' }), timeoutMs, now: () => clock }),
    now: () => clock,
    leaseMs: 60_000,
  };
  const handler = createDeliveryQueueHandler(deps, {
    ...createObservability('DeliverResults', (line) => extra.logs?.push(line)),
    sqs: new SQSClient({ region: 'eu-west-1' }),
    queueUrl: QUEUE_URL,
    maxReceives: MAX_DELIVERY_RECEIVES,
  });
  return (body: string, receiveCount: number) =>
    handler(sqsEvent(sqsRecord(body, receiveCount, `msg-${runId}`)), lambdaContext(30_000, 'DeliverResults'));
}

async function endedRun(runId: string, kind: FinishedKind = 'PUBLISHED') {
  await runs.queueRun({
    runId,
    sessionId: 's-1',
    enterpriseId: 'E1001',
    query: '下单失败 <!channel>',
    continueSession: false,
  });
  await runs.claimQueuedRun(runId, T0 + 60_000);
  await runs.completeRun(runId, outcomeOf(kind));
  const run = await runs.getRun(runId);
  if (run === null || run.status === 'QUEUED' || run.status === 'RUNNING') throw new Error('not ended');
  return { ...run, status: run.status };
}

describe('createDeliveryQueueHandler', () => {
  it('delivers a result to Slack, the signed webhook and SNS once, and a duplicate receive sends nothing again', async () => {
    const run = await endedRun('run-deliver-all');
    const body = JSON.stringify(deliveredEnvelope(run));
    const deliver = handlerFor(run.runId);
    expect(await deliver(body, 1)).toEqual({ batchItemFailures: [] });

    const slack = receiver.received.find((request) => request.path === `/slack/${run.runId}`);
    const message = JSON.parse(slack?.body ?? '{}') as SlackMessage;
    expect(blockKitViolations(message, [])).toEqual([]);
    expect(message.blocks[0]).toMatchObject({ type: 'header' });

    const hook = receiver.received.find((request) => request.path === `/hook/${run.runId}`);
    expect(hook?.headers['x-diagnosis-delivery-id']).toBe(`${run.runId}:itsm`);
    const check = verifyWebhookSignature({
      body: hook?.body ?? '',
      timestamp: hook?.headers['x-diagnosis-timestamp'] as string,
      signature: hook?.headers['x-diagnosis-signature'] as string,
      keys: [SIGNING_KEY],
      nowMs: clock,
    });
    expect(check).toEqual({ ok: true });
    expect(resultEventValidator()(JSON.parse(hook?.body ?? '{}'))).toBe(true);

    const published = sns.commandCalls(PublishCommand)[0]?.args[0].input;
    expect(published).toMatchObject({ TopicArn: TOPIC, MessageStructure: 'json' });
    expect(JSON.parse(published?.Message ?? '{}')).toHaveProperty('email');

    expect(
      (await deliveries.listDeliveries(run)).map((record) => [record.destinationId, record.status, record.attempts]),
    ).toEqual([
      ['itsm', 'DELIVERED', 1],
      ['oncall', 'DELIVERED', 1],
      ['ops-mail', 'DELIVERED', 1],
    ]);
    expect(await deliver(body, 2)).toEqual({ batchItemFailures: [] });
    expect(receiver.received).toHaveLength(2);
    expect(sns.commandCalls(PublishCommand)).toHaveLength(1);
  });

  it.each([
    ['answers 500', { status: 500 } as const, 'HTTP_500'],
    ['hangs without answering', 'hang' as const, 'TIMEOUT'],
    ['redirects elsewhere', { status: 302 } as const, 'HTTP_302'],
  ])(
    'retries a webhook that %s with backoff, then dead-letters it; the run and the other destinations are unchanged',
    async (_name, answer, code) => {
      const run = await endedRun(`run-retry-${code.toLowerCase()}`);
      receiver.answer(`/hook/${run.runId}`, answer);
      const before = await runs.getRun(run.runId);
      const body = JSON.stringify(deliveredEnvelope(run));
      const deliver = handlerFor(run.runId, 200);
      for (let receive = 1; receive <= MAX_DELIVERY_RECEIVES; receive += 1) {
        clock += 61_000;
        expect(await deliver(body, receive)).toEqual({ batchItemFailures: [{ itemIdentifier: `msg-${run.runId}` }] });
      }
      // Backoff before each receive but the last (after which SQS moves the message to the dead-letter queue).
      expect(
        sqs.commandCalls(ChangeMessageVisibilityCommand).map((call) => call.args[0].input.VisibilityTimeout),
      ).toEqual([30, 60, 120, 240]);
      const records = await deliveries.listDeliveries(run);
      expect(records.find((record) => record.destinationId === 'itsm')).toMatchObject({
        status: 'DEAD_LETTERED',
        attempts: 5,
        lastError: code,
      });
      expect(records.filter((record) => record.status === 'DELIVERED').map((record) => record.destinationId)).toEqual([
        'oncall',
        'ops-mail',
      ]);
      expect(receiver.received.filter((request) => request.path === `/slack/${run.runId}`)).toHaveLength(1);
      expect(receiver.received.filter((request) => request.path === `/hook/${run.runId}`)).toHaveLength(5);
      expect(await runs.getRun(run.runId)).toEqual(before);
    },
  );

  it('counts a 200 whose body never ends as delivered', async () => {
    const run = await endedRun('run-slow-body');
    receiver.answer(`/slack/${run.runId}`, 'status-then-hang');
    expect(await handlerFor(run.runId, 200)(JSON.stringify(deliveredEnvelope(run)), 1)).toEqual({
      batchItemFailures: [],
    });
    expect((await deliveries.listDeliveries(run)).every((record) => record.status === 'DELIVERED')).toBe(true);
  });

  it('delivers every terminal outcome (FALLBACK, FAILED, CANCELLED) the same way', async () => {
    for (const kind of ['FALLBACK', 'FAILED', 'CANCELLED'] as const) {
      const run = await endedRun(`run-outcome-${kind.toLowerCase()}`, kind);
      expect(await handlerFor(run.runId)(JSON.stringify(deliveredEnvelope(run)), 1)).toEqual({ batchItemFailures: [] });
      const slack = receiver.received.find((request) => request.path === `/slack/${run.runId}`);
      expect(slack?.body).toContain('No conclusion');
    }
  });

  it('sends only once when two receives of one message run at the same time (the attempt is held)', async () => {
    const run = await endedRun('run-concurrent');
    const body = JSON.stringify(deliveredEnvelope(run));
    const deliver = handlerFor(run.runId);
    const answers = await Promise.all([deliver(body, 1), deliver(body, 1)]);
    expect(receiver.received.filter((request) => request.path === `/slack/${run.runId}`)).toHaveLength(1);
    expect(receiver.received.filter((request) => request.path === `/hook/${run.runId}`)).toHaveLength(1);
    // A receive that found an attempt held comes back later, and then finds it delivered. NOTE: each destination is
    // taken on its own, so the two receives may each take some of the three (each then reports the others held, and
    // both come back): at least one comes back, never none. (Asserting exactly one flaked on a loaded machine.)
    expect(answers.flatMap((answer) => answer.batchItemFailures).length).toBeGreaterThanOrEqual(1);
    expect(await deliver(body, 2)).toEqual({ batchItemFailures: [] });
    expect(receiver.received.filter((request) => request.path === `/slack/${run.runId}`)).toHaveLength(1);
  });

  it('drops, without sending or retrying, a forged or foreign message: another enterprise, an unknown or unfinished run, bad JSON', async () => {
    const run = await endedRun('run-forged');
    const envelope = deliveredEnvelope(run);
    await runs.queueRun({
      runId: 'run-still-queued',
      sessionId: 's',
      enterpriseId: 'E1001',
      query: 'q',
      continueSession: false,
    });
    const forged = [
      { ...envelope, detail: { ...envelope.detail, enterpriseId: 'E2002' } },
      { ...envelope, detail: { ...envelope.detail, runId: 'run-never-stored' } },
      { ...envelope, detail: { ...envelope.detail, runId: 'run-still-queued' } },
      { ...envelope, detail: { ...envelope.detail, runId: 'RUN#x' } },
      { ...envelope, source: 'someone.else' },
    ].map((value) => JSON.stringify(value));
    const deliver = handlerFor(run.runId);
    for (const body of [...forged, '{not json', '']) {
      expect(await deliver(body, 1)).toEqual({ batchItemFailures: [] });
    }
    expect(receiver.received).toEqual([]);
    expect(sns.commandCalls(PublishCommand)).toEqual([]);
    expect(await deliveries.listDeliveries(run)).toEqual([]);
  });

  it('sends what the stored run says, whatever the message body claims', async () => {
    const run = await endedRun('run-rewritten');
    const envelope = deliveredEnvelope(run);
    const body = JSON.stringify({
      ...envelope,
      detail: { ...envelope.detail, conclusion: '<!channel> 伪造的结论', findings: [] },
    });
    await handlerFor(run.runId)(body, 1);
    const hook = receiver.received.find((request) => request.path === `/hook/${run.runId}`);
    expect(JSON.parse(hook?.body ?? '{}').detail).toEqual(envelope.detail);
    expect(receiver.received.map((request) => request.body).join('')).not.toContain('伪造的结论');
  });

  it('lets the message come back when the table fails, without recording anything', async () => {
    const run = await endedRun('run-table-down');
    const broken = { ...runs, getRun: async () => Promise.reject(new Error('ProvisionedThroughputExceededException')) };
    const handler = createDeliveryQueueHandler(
      {
        runs: broken,
        deliveries,
        destinations: new Map([['E1001', destinationsOf(run.runId)]]),
        send: createDestinationSender({
          sns: new SNSClient({ region: 'eu-west-1' }),
          timeoutMs: 200,
          now: () => clock,
        }),
        now: () => clock,
        leaseMs: 60_000,
      },
      {
        ...createObservability('DeliverResults', () => undefined),
        sqs: new SQSClient({ region: 'eu-west-1' }),
        queueUrl: QUEUE_URL,
        maxReceives: 5,
      },
    );
    const answer = await handler(
      sqsEvent(sqsRecord(JSON.stringify(deliveredEnvelope(run)), 1, 'm')),
      lambdaContext(30_000, 'DeliverResults'),
    );
    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: 'm' }] });
    expect(receiver.received).toEqual([]);
  });
});

describe('GET /runs/{runId} after delivery', () => {
  it("shows each destination's delivery status on the run, to a caller allowed to read the run only", async () => {
    const run = await endedRun('run-status-shown');
    receiver.answer(`/hook/${run.runId}`, { status: 503 });
    await handlerFor(run.runId, 200)(JSON.stringify(deliveredEnvelope(run)), 1);
    const get = (policy: Parameters<typeof createGetRunHandler>[1]['policy']) =>
      createGetRunHandler(runs, { ...createObservability('GetRun', () => undefined), policy, deliveries })(
        httpEvent({ method: 'GET', path: `/runs/${run.runId}`, pathParameters: { runId: run.runId } }) as never,
        lambdaContext(10_000, 'GetRun'),
      );
    const answer = await get(null);
    expect(answer.statusCode).toBe(200);
    const body = JSON.parse(String(answer.body)) as { status: string; delivery: unknown[] };
    expect(body.status).toBe('PUBLISHED');
    expect(body.delivery).toEqual([
      expect.objectContaining({
        destinationId: 'itsm',
        destinationType: 'webhook',
        status: 'RETRYING',
        attempts: 1,
        lastError: 'HTTP_503',
      }),
      expect.objectContaining({
        destinationId: 'oncall',
        destinationType: 'slack',
        status: 'DELIVERED',
        attempts: 1,
        lastError: null,
      }),
      expect.objectContaining({ destinationId: 'ops-mail', destinationType: 'sns', status: 'DELIVERED' }),
    ]);
    const foreign = await get([{ principal: '*', enterprises: ['E2002'] }] as never);
    expect(foreign.statusCode).toBe(404);
    expect(String(foreign.body)).not.toContain('itsm');
  });
});

describe('createDeliveryQueueHandler with the reveal of an enterprise that opted in (issue 22)', () => {
  const PHONE = '+8613912345678';
  const EMAIL = 'zhang.min@example.cn';

  /** A run whose Draft shows pseudonyms, with (or without) its map sealed in the table as a run writes it. */
  async function maskedRun(runId: string, withMap: boolean) {
    const masking = createMaskingSession({ mode: 'identifiers', secret: DEVELOPMENT_MASKING_SECRET }, runId);
    const draft = {
      ...supportedDraft(['call_logs_1']),
      conclusion: masking.maskText(`客户 ${PHONE} <${EMAIL}> 支付失败`),
    };
    if (withMap) {
      const audit = createDynamoAuditWriter({ client, tableName, now: () => clock });
      let sequence = 0;
      for (const batch of sealNewPseudonyms(masking, { runId, sessionId: 's-1' }, () => ++sequence)) {
        await audit.onPseudonyms(batch);
      }
      await audit.flush();
    }
    await runs.queueRun({ runId, sessionId: 's-1', enterpriseId: 'E1001', query: '支付失败', continueSession: false });
    await runs.claimQueuedRun(runId, T0 + 60_000);
    await runs.completeRun(runId, outcomeOf('PUBLISHED', draft));
    const run = await runs.getRun(runId);
    if (run === null || run.status === 'QUEUED' || run.status === 'RUNNING') throw new Error('not ended');
    return { ...run, status: run.status };
  }
  const reveal = (): DeliveryReveal => ({
    enterprises: new Set(['E1001']),
    pseudonyms: runs,
    secret: DEVELOPMENT_MASKING_SECRET,
  });

  it('sends the real values, escaped, to Slack and the webhook, read from the run’s map in the table', async () => {
    const run = await maskedRun('run-reveal-table', true);
    const deliver = handlerFor(run.runId, 2_000, { reveal: reveal() });
    expect(await deliver(JSON.stringify(deliveredEnvelope(run)), 1)).toEqual({ batchItemFailures: [] });
    const slack = receiver.received.find((request) => request.path === `/slack/${run.runId}`)?.body ?? '';
    expect(slack).toContain(PHONE);
    expect(slack).toContain(`&lt;${EMAIL}&gt;`);
    expect(slack).not.toMatch(/<phone:|&lt;phone:/);
    const hook = JSON.parse(receiver.received.find((request) => request.path === `/hook/${run.runId}`)?.body ?? '{}');
    expect(hook.detail.conclusion).toBe(`客户 ${PHONE} <${EMAIL}> 支付失败`);
    // The run item keeps what the model saw.
    expect((await runs.getRun(run.runId))?.publishedResult?.draft.conclusion).not.toContain(PHONE);
  });

  it('delivers masked when the run has no map, logging a stable code and no value', async () => {
    const run = await maskedRun('run-reveal-nomap', false);
    const logs: string[] = [];
    const deliver = handlerFor(run.runId, 2_000, { reveal: reveal(), logs });
    expect(await deliver(JSON.stringify(deliveredEnvelope(run)), 1)).toEqual({ batchItemFailures: [] });
    const slack = receiver.received.find((request) => request.path === `/slack/${run.runId}`)?.body ?? '';
    expect(slack).toMatch(/&lt;phone:[a-z2-7]{5,13}&gt;/);
    const warning = logs.map((line) => JSON.parse(line)).find((line) => line.message === 'delivery reveal unavailable');
    expect(warning).toMatchObject({ runId: run.runId, code: 'PSEUDONYM_MAP_INCOMPLETE' });
    expect(logs.join('\n')).not.toContain(PHONE);
    expect((await deliveries.listDeliveries(run)).every((record) => record.status === 'DELIVERED')).toBe(true);
  });
});
