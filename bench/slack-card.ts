/**
 * The Slack app's card on this machine, built the way bench/delivery.ts measures the incoming-webhook delivery (its
 * figure is the baseline): the run item's write → the table's stream read back (GetRecords on DynamoDB Local) → the
 * SlackWork handler → the official `@slack/web-api` client → a loopback Slack Web API (`startLoopbackSlack`).
 * Figures, per run: an alarm's run queued (`queueRun`, what the Trigger writes) → the card posted; the run ended
 * (`completeRun`) → the card replaced by the result (chat.update; the details reply follows); and the Slack Web API
 * calls of one run that writes its progress every 2 s for 60 s (clock driven by the bench, so the throttle's 5 s
 * interval applies as on AWS), counted on the loopback server.
 * NOT in the figures: AWS's hops (Lambda polling the stream, its batching window of up to 2 s) and Slack's own latency.
 * Run: `node bench/slack-card.ts`; BENCH_SLACK_RUNS (default 40).
 */
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import { DEVELOPMENT_MASKING_SECRET, emptyRunUsage } from '@diagnosis/core';
import { createDynamoFeedbackStore, createDynamoRunStore, diagnosisTableDefinition } from '@diagnosis/core/store';
import { lambdaContext, startDynamoDbLocal, startLoopbackSlack } from '@diagnosis/devkit';
import { composeRating, createObservability } from '@diagnosis/functions';
import type { DynamoDBRecord } from 'aws-lambda';
import { createDynamoCardStore } from '../functions/slack/dynamo-card-store.ts';
import { createSlackApi } from '../functions/slack/slack-api.ts';
import { resolveSlackApps } from '../functions/slack/slack-settings.ts';
import { createSlackWorkHandler } from '../functions/slack/slack-work-handler.ts';
import { outcomeOf } from '../test/support/finished-runs.ts';

const RUNS = Number(process.env.BENCH_SLACK_RUNS ?? 40);
const TOKEN = 'xoxb-bench-0123456789-slackcard';

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};
const summary = (values: number[]) =>
  `p50 ${percentile(values, 50).toFixed(1)} ms, p95 ${percentile(values, 95).toFixed(1)} ms (n=${values.length})`;

export async function benchSlackCard(): Promise<void> {
  const engine = await startDynamoDbLocal();
  let now = Date.now();
  const slack = await startLoopbackSlack({ token: TOKEN, now: () => now });
  const credentials = { accessKeyId: 'l', secretAccessKey: 'l' };
  const client = new DynamoDBClient({ endpoint: engine.endpoint, region: 'local', credentials });
  const streams = new DynamoDBStreamsClient({ endpoint: engine.endpoint, region: 'local', credentials });
  try {
    const tableName = 'bench-slack';
    const created = await client.send(
      new CreateTableCommand({
        ...diagnosisTableDefinition(tableName),
        StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
      }),
    );
    const streamArn = created.TableDescription?.LatestStreamArn ?? '';
    const runs = createDynamoRunStore({ client, tableName, now: () => now });
    const apps = resolveSlackApps(
      [
        {
          id: 'e1001',
          enterpriseId: 'E1001',
          teamId: 'T0E1001AA',
          channels: ['C0E1001AA'],
          alertChannel: 'C0E1001AA',
          botTokenSecret: 'SlackBot',
          signingSecretSecret: 'SlackSigning',
        },
      ],
      (name) => (name === 'SlackBot' ? TOKEN : 'bench-signing-secret-0123456789'),
    );
    const api = createSlackApi({ token: TOKEN, timeoutMs: 5_000, apiUrl: slack.apiUrl });
    const worker = createSlackWorkHandler(
      {
        apps,
        slackOf: () => api,
        cards: createDynamoCardStore({ client, tableName }),
        runs,
        feedback: createDynamoFeedbackStore({ client, tableName }),
        start: {
          store: runs,
          workflow: { executionArnOf: (id) => id, start: async () => undefined, stop: async () => undefined },
        },
        rate: composeRating({
          client,
          tableName,
          masking: { secret: DEVELOPMENT_MASKING_SECRET, mode: 'identifiers' },
          pastIncidentRetentionDays: 730,
        }),
        now: () => now,
        slackTimeoutMs: 5_000,
      },
      { ...createObservability('Bench', () => undefined), requeue: async () => undefined },
    );
    const shard = (await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }))).StreamDescription;
    let iterator = (
      await streams.send(
        new GetShardIteratorCommand({
          StreamArn: streamArn,
          ShardId: shard?.Shards?.[0]?.ShardId ?? '',
          ShardIteratorType: 'LATEST',
        }),
      )
    ).ShardIterator;
    /** The stream's new records, read until there is at least one, as Lambda hands them over. */
    const readRecords = async (): Promise<DynamoDBRecord[]> => {
      const records: DynamoDBRecord[] = [];
      while (records.length === 0) {
        const page = await streams.send(new GetRecordsCommand({ ShardIterator: iterator }));
        iterator = page.NextShardIterator;
        for (const record of page.Records ?? []) {
          records.push({
            eventName: record.eventName as DynamoDBRecord['eventName'],
            dynamodb: {
              Keys: record.dynamodb?.Keys as never,
              NewImage: record.dynamodb?.NewImage as never,
              SequenceNumber: record.dynamodb?.SequenceNumber,
            },
          });
        }
      }
      return records;
    };
    const handle = async (records: DynamoDBRecord[]) => {
      const answer = await worker({ Records: records } as never, lambdaContext(60_000, 'SlackWork'));
      if (answer.batchItemFailures.length > 0) throw new Error('the SlackWork handler failed a record');
    };

    const posted: number[] = [];
    const replaced: number[] = [];
    for (let index = 0; index < RUNS + 5; index += 1) {
      const runId = `bench-card-${index}`;
      const trigger = {
        source: 'cloudwatch' as const,
        incidentKey: `alarm-${index}`,
        eventId: `ev-${index}`,
        title: 'E1001-payment-5xx',
        startedAt: new Date(now).toISOString(),
      };
      const calls = slack.calls.length;
      const queuedAt = performance.now();
      await runs.queueRun(
        { runId, sessionId: `s-${index}`, enterpriseId: 'E1001', query: '订单失败', continueSession: false, trigger },
        { executionArn: runId },
      );
      await handle(await readRecords());
      const postedAt = performance.now();
      if (!slack.calls.slice(calls).some((call) => call.method === 'chat.postMessage')) throw new Error('no card');
      now += 1_000;
      await runs.claimQueuedRun(runId, now + 600_000);
      await handle(await readRecords());
      now += 6_000;
      const before = slack.calls.length;
      const endedAt = performance.now();
      await runs.completeRun(runId, outcomeOf('PUBLISHED'));
      await handle(await readRecords());
      const replacedAt = performance.now();
      if (!slack.calls.slice(before).some((call) => call.method === 'chat.update')) throw new Error('not replaced');
      now += 60_000;
      if (index >= 5) {
        posted.push(postedAt - queuedAt);
        replaced.push(replacedAt - endedAt);
      }
    }

    // One run of 60 s writing its progress every 2 s (30 writes), the stream handing over each write on its own.
    const runId = 'bench-card-calls';
    const first = slack.calls.length;
    await runs.queueRun(
      {
        runId,
        sessionId: 's-calls',
        enterpriseId: 'E1001',
        query: '订单失败',
        continueSession: false,
        trigger: {
          source: 'cloudwatch',
          incidentKey: 'calls',
          eventId: 'ev-calls',
          title: 'E1001-payment-5xx',
          startedAt: new Date(now).toISOString(),
        },
      },
      { executionArn: runId },
    );
    await handle(await readRecords());
    await runs.claimQueuedRun(runId, now + 600_000);
    await handle(await readRecords());
    for (let write = 1; write <= 30; write += 1) {
      now += 2_000;
      const progress = {
        modelCalls: write,
        toolCalls: write,
        rejectedToolCalls: 0,
        totalTokens: write * 1_000,
        checks: [],
      };
      await runs.updateProgress(runId, { usage: emptyRunUsage(), progress });
      await handle(await readRecords());
    }
    now += 2_000;
    await runs.completeRun(runId, outcomeOf('PUBLISHED'));
    await handle(await readRecords());
    const byMethod = new Map<string, number>();
    for (const call of slack.calls.slice(first)) byMethod.set(call.method, (byMethod.get(call.method) ?? 0) + 1);

    console.log('\n## Slack app: the card (loopback Slack, official client, DynamoDB Local stream)');
    console.log(`alarm's run queued → stream read → SlackWork → card posted: ${summary(posted)}`);
    console.log(`run ended → stream read → SlackWork → card replaced (and details posted): ${summary(replaced)}`);
    console.log(
      `Slack Web API calls of one 62 s run with 30 progress writes: ${[...byMethod.entries()].map(([method, count]) => `${method} ${count}`).join(', ')}`,
    );
  } finally {
    streams.destroy();
    client.destroy();
    await slack.close();
    await engine.stop();
  }
}

if (import.meta.main) await benchSlackCard();
