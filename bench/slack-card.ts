/**
 * The Slack app's card as deployed, on this machine: the run item's write → the table's stream on DynamoDB Local →
 * Lambda's event source mapping simulated with the SlackCards mapping's own settings (deploy/slack.ts: batch size,
 * batching window, filters; the shard read 4 times a second, as AWS documents: bench/simulated-stream-mapping.ts) →
 * the SlackWork handler → the official `@slack/web-api` client → a loopback Slack Web API (`startLoopbackSlack`).
 * Figures, per run, p50 and p95 with their parts: an alarm's run queued (`queueRun`, what the Trigger writes) → the
 * card posted (Slack has the `chat.postMessage`); the run ended (`completeRun`) → the card replaced by the result
 * (Slack has the `chat.update`; the details reply follows); each write lands at a random point of the poll interval,
 * as writes do on AWS. And the Slack Web API calls of one 62 s run that writes its progress every 2 s, on a virtual
 * clock polled as the mapping polls (so the throttle's 5 s interval and any window apply as on AWS), counted on the
 * loopback server. NOT in the figures: AWS's own hops around them (the Trigger's invocation, DynamoDB's and Slack's
 * network, Lambda's invocation of SlackWork): docs/deploy.md adds them for the expected time deployed.
 * Run: `node bench/slack-card.ts`; BENCH_SLACK_RUNS (default 40) after BENCH_SLACK_WARMUP unmeasured runs (default 5).
 * It prints its rows as BENCHMARKS.md's table has them.
 */
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { DEVELOPMENT_MASKING_SECRET, emptyRunUsage } from '@diagnosis/core';
import { createDynamoFeedbackStore, createDynamoRunStore, diagnosisTableDefinition } from '@diagnosis/core/store';
import { lambdaContext, type SlackCall, startDynamoDbLocal, startLoopbackSlack } from '@diagnosis/devkit';
import { composeRating, createObservability } from '@diagnosis/functions';
import type { DynamoDBRecord } from 'aws-lambda';
import { SLACK_CARD_STREAM_BATCHING, SLACK_CARD_STREAM_FILTERS } from '../deploy/slack.ts';
import { createDynamoCardStore } from '../functions/slack/dynamo-card-store.ts';
import { createSlackApi } from '../functions/slack/slack-api.ts';
import { resolveSlackApps } from '../functions/slack/slack-settings.ts';
import { createSlackWorkHandler } from '../functions/slack/slack-work-handler.ts';
import { outcomeOf } from '../test/support/finished-runs.ts';
import { percentile } from './latency.ts';
import {
  createSimulatedStreamMapping,
  POLL_INTERVAL_MS,
  POLLS_PER_SECOND,
  type StreamMappingSettings,
} from './simulated-stream-mapping.ts';

const RUNS = Number(process.env.BENCH_SLACK_RUNS ?? 40);
const WARMUP_RUNS = Number(process.env.BENCH_SLACK_WARMUP ?? 5);
if (!Number.isSafeInteger(WARMUP_RUNS) || WARMUP_RUNS < 0) throw new Error('BENCH_SLACK_WARMUP is a whole number ≥ 0');
const TOKEN = 'xoxb-bench-0123456789-slackcard';

/** The SlackCards mapping as deploy/resources/slack.ts deploys it: its batching and its filters. */
const DEPLOYED_MAPPING: StreamMappingSettings = { ...SLACK_CARD_STREAM_BATCHING, filters: SLACK_CARD_STREAM_FILTERS };

/** One measured path: the write, the wait until the mapping hands its record to SlackWork, SlackWork to Slack. */
interface PathSample {
  total: number;
  write: number;
  stream: number;
  slack: number;
  /** SlackWork's DynamoDB requests before its Slack call (a count: the deployed round trips on this path). */
  requests: number;
}

const ms = (value: number) => `${value.toFixed(1)} ms`;
const p50p95 = (values: number[]) => `${ms(percentile(values, 50))} (p95 ${ms(percentile(values, 95))})`;
const parts = (samples: PathSample[]) => {
  const of = (part: keyof PathSample) => samples.map((sample) => sample[part]);
  const requests = `${percentile(of('requests'), 50)} DynamoDB requests of SlackWork before its call`;
  return `${requests}; write ${p50p95(of('write'))}, stream to SlackWork ${p50p95(of('stream'))}, SlackWork to Slack ${p50p95(of('slack'))}`;
};

function commitOf(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short=7', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

export async function benchSlackCard(): Promise<void> {
  const engine = await startDynamoDbLocal();
  let now = Date.now();
  /** When Slack (the loopback) had each call, on the real clock, and how many DynamoDB requests were sent by then. */
  const answeredAt = new WeakMap<SlackCall, { at: number; requests: number }>();
  let requests = 0;
  const slack = await startLoopbackSlack({
    token: TOKEN,
    now: () => now,
    onCall: (call) => answeredAt.set(call, { at: performance.now(), requests }),
  });
  const credentials = { accessKeyId: 'l', secretAccessKey: 'l' };
  const client = new DynamoDBClient({ endpoint: engine.endpoint, region: 'local', credentials });
  const streams = new DynamoDBStreamsClient({ endpoint: engine.endpoint, region: 'local', credentials });
  client.middlewareStack.add(
    (next) => async (args) => {
      requests += 1;
      return next(args);
    },
    { step: 'initialize', name: 'countRequests' },
  );
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
    let invoked = { at: 0, requests: 0 };
    const mapping = await createSimulatedStreamMapping({
      streams,
      streamArn,
      settings: DEPLOYED_MAPPING,
      invoke: async (records: DynamoDBRecord[]) => {
        invoked = { at: performance.now(), requests };
        const answer = await worker({ Records: records } as never, lambdaContext(60_000, 'SlackWork'));
        if (answer.batchItemFailures.length > 0) throw new Error('the SlackWork handler failed a record');
      },
    });

    // Real time: the shard is read on Lambda's grid of polls; a step waits until the mapping has invoked SlackWork.
    const gridStart = performance.now();
    const maxPolls = Math.ceil((DEPLOYED_MAPPING.maximumBatchingWindowInSeconds * 1_000) / POLL_INTERVAL_MS) + 8;
    const deliver = async () => {
      for (let polls = 0; polls < maxPolls; polls += 1) {
        const tick = gridStart + Math.ceil((performance.now() - gridStart) / POLL_INTERVAL_MS) * POLL_INTERVAL_MS;
        await sleep(Math.max(0, tick - performance.now()));
        if ((await mapping.poll(performance.now())) > 0) return;
      }
      throw new Error('no record reached SlackWork');
    };
    /** `write` at a random point of the poll interval, until Slack has the `method` call it leads to. */
    const measure = async (write: () => Promise<unknown>, method: string): Promise<PathSample> => {
      await sleep(Math.random() * POLL_INTERVAL_MS);
      const calls = slack.calls.length;
      const startedAt = performance.now();
      await write();
      const writtenAt = performance.now();
      await deliver();
      const call = slack.calls.slice(calls).find((each) => each.method === method && each.status === 200);
      const answered = call === undefined ? undefined : answeredAt.get(call);
      if (answered === undefined) throw new Error(`SlackWork made no ${method} call`);
      return {
        total: answered.at - startedAt,
        write: writtenAt - startedAt,
        stream: invoked.at - writtenAt,
        slack: answered.at - invoked.at,
        requests: answered.requests - invoked.requests,
      };
    };

    const posted: PathSample[] = [];
    const replaced: PathSample[] = [];
    for (let index = 0; index < RUNS + WARMUP_RUNS; index += 1) {
      const runId = `bench-card-${index}`;
      const trigger = {
        source: 'cloudwatch' as const,
        incidentKey: `alarm-${index}`,
        eventId: `ev-${index}`,
        title: 'E1001-payment-5xx',
        startedAt: new Date(now).toISOString(),
      };
      const post = await measure(
        () =>
          runs.queueRun(
            {
              runId,
              sessionId: `s-${index}`,
              enterpriseId: 'E1001',
              query: '订单失败',
              continueSession: false,
              trigger,
            },
            { executionArn: runId },
          ),
        'chat.postMessage',
      );
      now += 1_000;
      await runs.claimQueuedRun(runId, now + 600_000);
      await deliver();
      now += 6_000;
      const replace = await measure(() => runs.completeRun(runId, outcomeOf('PUBLISHED')), 'chat.update');
      now += 60_000;
      if (index >= WARMUP_RUNS) {
        posted.push(post);
        replaced.push(replace);
      }
    }

    // Virtual time: one run of 62 s writing its progress every 2 s (30 writes), the shard read at each of Lambda's
    // polls in between, so the card's interval and the mapping's window meet the records as they would on AWS.
    let pollAt = now;
    const runClockTo = async (until: number) => {
      for (; pollAt <= until; pollAt += POLL_INTERVAL_MS) {
        now = pollAt;
        await mapping.poll(pollAt);
      }
      now = until;
    };
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
    await runClockTo(now + 1_000);
    await runs.claimQueuedRun(runId, now + 600_000);
    await runClockTo(now + 1_000);
    for (let write = 1; write <= 30; write += 1) {
      const progress = {
        modelCalls: write,
        toolCalls: write,
        rejectedToolCalls: 0,
        totalTokens: write * 1_000,
        checks: [],
      };
      await runs.updateProgress(runId, { usage: emptyRunUsage(), progress });
      await runClockTo(now + 2_000);
    }
    await runs.completeRun(runId, outcomeOf('PUBLISHED'));
    await runClockTo(now + 10_000);
    const byMethod = new Map<string, number>();
    for (const call of slack.calls.slice(first)) byMethod.set(call.method, (byMethod.get(call.method) ?? 0) + 1);
    const counts = [...byMethod.entries()].map(([method, count]) => `${method.replace('chat.', '')} ${count}`);

    const [load] = loadavg();
    const measured = `load ${load?.toFixed(1)}`;
    const stamp = `${commitOf()} | ${new Date().toISOString().slice(0, 10)}`;
    console.log('\n## Slack card (the deployed mapping simulated on DynamoDB Local, official client, loopback Slack)');
    console.log(
      `mapping: batch ${DEPLOYED_MAPPING.batchSize}, window ${DEPLOYED_MAPPING.maximumBatchingWindowInSeconds} s, ${DEPLOYED_MAPPING.filters.length} filters, the shard read ${POLLS_PER_SECOND} times a second; ${RUNS} runs after ${WARMUP_RUNS}; node ${process.version}, 1-minute ${measured}`,
    );
    console.log(`alarm's run queued → card posted: ${parts(posted)}`);
    console.log(`run ended → card replaced: ${parts(replaced)}`);
    console.log('rows for BENCHMARKS.md ("Slack card"):');
    console.log(`| Slack Web API calls, a 62 s run | ${counts.join(', ')} | ${stamp} | count |`);
    console.log(
      `| alarm's run queued → card posted, p50 (p95) | ${p50p95(posted.map((sample) => sample.total))} | ${stamp} | ${measured} |`,
    );
    console.log(
      `| run ended → card replaced, p50 (p95) | ${p50p95(replaced.map((sample) => sample.total))} | ${stamp} | ${measured} |`,
    );
  } finally {
    streams.destroy();
    client.destroy();
    await slack.close();
    await engine.stop();
  }
}

if (import.meta.main) await benchSlackCard();
