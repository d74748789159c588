/**
 * Delivery on this machine: run finished → Slack message posted, through the real functions' code on DynamoDB Local
 * with a stream, and the requests it costs per finished run, counted (not estimated) on the clients.
 * Path measured, per run: `completeRun` (the run item's last write) → the table's stream read back (GetRecords) →
 * OnRunFinished's handler (PutEvents to a counting stand-in of EventBridge, which has no local engine) → the event
 * as EventBridge would hand it to SQS → DeliverResults' handler → a loopback Slack receiver gets the POST.
 * NOT in the figure: AWS's own hops (Lambda polling the stream, EventBridge → SQS, Lambda polling SQS), which add
 * their latencies on AWS; and the SNS publish, which goes to a counting stand-in too.
 * Run: `node bench/delivery.ts` (also part of `npm run bench`); BENCH_DELIVERY_RUNS (default 50).
 */

import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { SNSClient } from '@aws-sdk/client-sns';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { createDynamoRunStore, diagnosisTableDefinition } from '@diagnosis/core/store';
import { lambdaContext, startDynamoDbLocal } from '@diagnosis/devkit';
import { createObservability } from '@diagnosis/functions';
import type { DynamoDBRecord } from 'aws-lambda';
import { MAX_DELIVERY_RECEIVES } from '../functions/delivery/delivery-metric-names.ts';
import { createDeliveryQueueHandler } from '../functions/delivery/delivery-queue-handler.ts';
import { createDynamoDeliveryStore } from '../functions/delivery/delivery-store.ts';
import { createDestinationSender } from '../functions/delivery/destination-senders.ts';
import { createRunFinishedStreamHandler } from '../functions/delivery/run-finished-stream-handler.ts';
import { sqsEvent, sqsRecord } from '../test/support/delivery-events.ts';
import { outcomeOf } from '../test/support/finished-runs.ts';
import { startLoopbackReceiver } from '../test/support/loopback-receiver.ts';

const RUNS = Number(process.env.BENCH_DELIVERY_RUNS ?? 50);

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};
const summary = (values: number[]) =>
  `p50 ${percentile(values, 50).toFixed(1)} ms, p95 ${percentile(values, 95).toFixed(1)} ms (n=${values.length})`;

export async function benchDelivery(): Promise<void> {
  const engine = await startDynamoDbLocal();
  const receiver = await startLoopbackReceiver();
  const credentials = { accessKeyId: 'l', secretAccessKey: 'l' };
  const client = new DynamoDBClient({ endpoint: engine.endpoint, region: 'local', credentials });
  const streams = new DynamoDBStreamsClient({ endpoint: engine.endpoint, region: 'local', credentials });
  const counted = new Map<string, number>();
  const count = (name: string) => counted.set(name, (counted.get(name) ?? 0) + 1);
  let counting = false;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (counting) count(`DynamoDB ${context.commandName}`);
      return next(args);
    },
    { step: 'initialize', name: 'countRequests' },
  );
  try {
    const tableName = 'bench-delivery';
    const created = await client.send(
      new CreateTableCommand({
        ...diagnosisTableDefinition(tableName),
        StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
      }),
    );
    const streamArn = created.TableDescription?.LatestStreamArn ?? '';
    const store = createDynamoRunStore({ client, tableName });
    const deliveries = createDynamoDeliveryStore({ client, tableName });
    const silent = () => createObservability('Bench', () => undefined);
    let lastEntry = '';
    const events = {
      send: async (command: { input: { Entries?: { Detail?: string; Source?: string; DetailType?: string }[] } }) => {
        if (counting) count('EventBridge PutEvents');
        const [entry] = command.input.Entries ?? [];
        lastEntry = JSON.stringify({
          version: '0',
          id: `evt-${Date.now()}`,
          'detail-type': entry?.DetailType,
          source: entry?.Source,
          account: '123456789012',
          time: new Date().toISOString(),
          region: 'eu-west-1',
          resources: [],
          detail: JSON.parse(entry?.Detail ?? '{}'),
        });
        return { FailedEntryCount: 0, Entries: (command.input.Entries ?? []).map(() => ({ EventId: 'e' })) };
      },
    } as unknown as EventBridgeClient;
    const counter = <T>(name: string, answer: T) => ({
      send: async () => {
        if (counting) count(name);
        return answer;
      },
    });
    const sns = counter('SNS Publish', { MessageId: 'm' }) as unknown as SNSClient;
    const sqs = counter('SQS ChangeMessageVisibility', {}) as unknown as SQSClient;
    const onRunFinished = createRunFinishedStreamHandler({ events, busName: 'bench' }, silent());
    const destinations = new Map([
      [
        'E1001',
        [
          { id: 'oncall', type: 'slack' as const, url: receiver.url('/slack') },
          { id: 'ops-mail', type: 'sns' as const, topicArn: 'arn:aws:sns:eu-west-1:123456789012:ops' },
          { id: 'itsm', type: 'webhook' as const, url: receiver.url('/hook'), signingKey: 'k' },
        ],
      ],
    ]);
    const deliver = createDeliveryQueueHandler(
      {
        runs: store,
        deliveries,
        destinations,
        send: createDestinationSender({ sns, timeoutMs: 5_000, now: Date.now }),
        now: Date.now,
        leaseMs: 45_000,
      },
      { ...silent(), sqs, queueUrl: undefined, maxReceives: MAX_DELIVERY_RECEIVES },
    );
    const shards = (await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }))).StreamDescription;
    const shardId = shards?.Shards?.[0]?.ShardId ?? '';
    let iterator = (
      await streams.send(
        new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shardId, ShardIteratorType: 'LATEST' }),
      )
    ).ShardIterator;

    const latencies: number[] = [];
    const ours: number[] = [];
    for (let index = 0; index < RUNS + 5; index += 1) {
      const runId = `bench-${index}`;
      await store.queueRun({
        runId,
        sessionId: 'bench',
        enterpriseId: 'E1001',
        query: '订单失败',
        continueSession: false,
      });
      await store.claimQueuedRun(runId, Date.now() + 60_000);
      // Drain the stream of the queue and claim writes.
      let drained = await streams.send(new GetRecordsCommand({ ShardIterator: iterator }));
      iterator = drained.NextShardIterator;
      receiver.received.length = 0;
      const started = performance.now();
      await store.completeRun(runId, outcomeOf('PUBLISHED'));
      // The last run's requests are counted, from its completion on (the completion itself is the run's, not ours).
      counting = index === RUNS + 4;
      const records: DynamoDBRecord[] = [];
      while (records.length === 0) {
        drained = await streams.send(new GetRecordsCommand({ ShardIterator: iterator }));
        iterator = drained.NextShardIterator;
        for (const record of drained.Records ?? []) {
          records.push({
            eventName: record.eventName as DynamoDBRecord['eventName'],
            dynamodb: {
              Keys: record.dynamodb?.Keys as never,
              NewImage: record.dynamodb?.NewImage as never,
              OldImage: record.dynamodb?.OldImage as never,
              SequenceNumber: record.dynamodb?.SequenceNumber,
            },
          });
        }
      }
      const read = performance.now();
      await onRunFinished({ Records: records }, lambdaContext(30_000, 'OnRunFinished'));
      await deliver(sqsEvent(sqsRecord(lastEntry, 1, runId)), lambdaContext(30_000, 'DeliverResults'));
      const posted = performance.now();
      if (!receiver.received.some((request) => request.path === '/slack')) throw new Error('no Slack message posted');
      if (index >= 5) {
        latencies.push(posted - started);
        ours.push(posted - read);
      }
      if (counting) {
        for (const request of receiver.received) count(`HTTP POST ${request.path} (loopback)`);
        counting = false;
      }
    }
    console.log('\n## Delivery: run finished → Slack message posted (loopback)');
    console.log(`completeRun → stream read → OnRunFinished → DeliverResults → Slack POST: ${summary(latencies)}`);
    console.log(`OnRunFinished + DeliverResults handlers alone (3 destinations): ${summary(ours)}`);
    console.log(
      'requests for one PUBLISHED run delivered to one Slack, one SNS and one webhook destination (counted):',
    );
    for (const [name, value] of [...counted.entries()].sort()) console.log(`  ${name}: ${value}`);
    console.log(
      'and by the wiring (not counted here): 1 OnRunFinished invocation (per stream batch), EventBridge → SQS 1 message, 1 DeliverResults invocation (per batch of up to 10), SQS DeleteMessage 1 (by Lambda)',
    );
  } finally {
    streams.destroy();
    client.destroy();
    await receiver.close();
    await engine.stop();
  }
}

if (import.meta.main) await benchDelivery();
