/**
 * Each deployed function's warm CPU per invocation, and what it costs at each Lambda memory size. The real handlers
 * (Diagnose as its entry composes itself at cold start; the others built by the factories their entries use), with
 * AWS-shaped events, on DynamoDB Local (another process: its CPU is not counted, as DynamoDB's is not a function's):
 * one cold invocation, then BENCH_CPU_INVOCATIONS (default 30) warm ones, each measured by `process.cpuUsage()`
 * (user + system) around the `await handler(event, context)`.
 *
 * The chain is the product's: StartDiagnosis queues a run (its Step Functions start recorded, not executed), the
 * DiagnosisWorkflow's local stand-in runs that run through Diagnose (the demo's scripted DeepSeek conversation on a
 * loopback server, the SemanticGuard on), GetRun reads it, RunFeedback rates it; Trigger takes a CloudWatch alarm of
 * a new incident, TriggerWebhook an Alertmanager group of a new incident. NOTE: the loopback model server answers in
 * this process, so Diagnose's figure includes the server's own work (small: it replays recorded answers).
 *
 * Lambda allots CPU in proportion to memory, 1,769 MB = one vCPU (AWS Lambda Developer Guide, "Configure Lambda
 * function memory"); a single-threaded handler gains nothing above it. So the expected CPU-bound time at M MB is
 * cpu × 1769 / M (below 1,769 MB) plus the time the invocation waits on others, and the cost per invocation is that
 * time × M / 1024 GB × the price per GB-s.
 *
 *   node bench/lambda-cpu.ts        BENCH_CPU_INVOCATIONS=N
 * NOTE: over 300 lines on purpose: one bench, every deployed function's warm CPU in one process on one table: the
 * functions' composition, their events, the chain that feeds each the next one's input and the curve are one
 * measurement.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SNSClient } from '@aws-sdk/client-sns';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { parseTriggerSettings, parseWorkflowSettings } from '@diagnosis/core/config';
import { ensureDiagnosisTable } from '@diagnosis/core/store';
import {
  createLocalDiagnosisWorkflow,
  lambdaContext,
  loadScriptedConversation,
  startDynamoDbLocal,
  startLoopbackSlack,
} from '@diagnosis/devkit';
import type { Context, SQSEvent } from 'aws-lambda';
import { MAX_DELIVERY_RECEIVES } from '../functions/delivery/delivery-metric-names.ts';
import { createDeliveryQueueHandler } from '../functions/delivery/delivery-queue-handler.ts';
import { createDynamoDeliveryStore } from '../functions/delivery/delivery-store.ts';
import { createDestinationSender } from '../functions/delivery/destination-senders.ts';
import { createTableStore } from '../functions/diagnose/table-store.ts';
import { createObservability } from '../functions/lambda/observability.ts';
import { composeLocalApi } from '../functions/local/local-api.ts';
import { composeLocalSlack } from '../functions/local/local-slack.ts';
import type { SlackWork } from '../functions/slack/slack-work.ts';
import { createTriggerHandler } from '../functions/triggers/trigger-handler.ts';
import { buildTriggerDeps } from '../functions/triggers/trigger-setup.ts';
import { startDeepSeekServer } from '../test/support/deepseek-server.ts';
import { deliveredEnvelope, sqsEvent, sqsRecord } from '../test/support/delivery-events.ts';
import { httpEvent } from '../test/support/lambda-events.ts';
import { startLoopbackReceiver } from '../test/support/loopback-receiver.ts';
import { recordingWorkflow } from '../test/support/recording-workflow.ts';
import { eventCallbackBody, mentionEvent, slackEvent } from '../test/support/slack-requests.ts';

/**
 * Lambda's price per GB-second, first 6 billion GB-s a month, US East (N. Virginia), aws.amazon.com/lambda/pricing as
 * read on 2026-12-06: x86 $0.0000166667; Arm (Graviton, what deploy/resources/* deploy) $0.0000133334. NOTE: this
 * machine is x86: a Graviton core's CPU time per invocation is not measured here, only scaled by the same ratio.
 */
const PRICE_PER_GB_SECOND = 0.0000166667;
const ARM_PRICE_PER_GB_SECOND = 0.0000133334;
/** The memory at which a function has one full vCPU (AWS Lambda Developer Guide). */
const ONE_VCPU_MB = 1769;
const MEMORY_SIZES = [128, 256, 512, 1024, 1769] as const;

/** The expected CPU-bound time (ms) of `cpuMs` of one-vCPU CPU at `memoryMb`. */
function expectedMs(cpuMs: number, memoryMb: number): number {
  return (cpuMs * ONE_VCPU_MB) / Math.min(memoryMb, ONE_VCPU_MB);
}

type Handler = (event: unknown, context: Context) => Promise<unknown>;

const ROOT = new URL('..', import.meta.url).pathname;
const INVOCATIONS = Number(process.env.BENCH_CPU_INVOCATIONS ?? 30);
const MASKING_SECRET = 'bench-masking-key-0123456789abcdef0123';
const SLACK_TOKEN = 'xoxb-1001-0123456789-benchcpu';
const SLACK_SIGNING = 'bench-signing-secret-0123456789';
const TOKEN = 'bench-alertmanager-token-0123456789';

/** One invocation's CPU (user + system) and wall time, in ms. */
interface Sample {
  cpu: number;
  wall: number;
}

async function cpuOf(call: () => Promise<unknown>): Promise<Sample> {
  const before = process.cpuUsage();
  const started = performance.now();
  await call();
  const wall = performance.now() - started;
  const used = process.cpuUsage(before);
  return { cpu: (used.user + used.system) / 1000, wall };
}

/**
 * The time an invocation waits on others (DynamoDB, Slack, the model), which memory does not shorten: here the wall
 * time less the CPU time, on DynamoDB Local and loopback servers. Diagnose's adds the model's time, which the
 * scripted model does not have: the demo's 6 model rounds at a floor of 500 ms each (a hosted model's answer of a few
 * hundred tokens takes longer).
 */
const MODEL_WAIT_FLOOR_MS = 6 * 500;

/**
 * The memory chosen from a function's curve: the smallest size from 256 MB up at which the next size shortens the
 * expected median invocation (CPU at the size's share of a vCPU + the wait) by less than 20 ms or less than 20 %:
 * beyond it, each doubling of the price per ms buys time nobody notices. NOTE: 128 MB is not a candidate: it gives
 * a cold start 7 % of a vCPU (the Cold start section's init, 14 times longer than at one vCPU).
 */
function chooseMemory(cpuMs: number, waitMs: number): number {
  const sizes = MEMORY_SIZES.filter((size) => size >= 256);
  for (const [index, size] of sizes.entries()) {
    const next = sizes[index + 1];
    if (next === undefined) return size;
    const now = expectedMs(cpuMs, size) + waitMs;
    const saved = now - (expectedMs(cpuMs, next) + waitMs);
    if (saved < 20 || saved / now < 0.2) return size;
  }
  return ONE_VCPU_MB;
}

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
};

export async function benchLambdaCpu(): Promise<void> {
  if (!Number.isSafeInteger(INVOCATIONS) || INVOCATIONS < 1) throw new Error('BENCH_CPU_INVOCATIONS is a count ≥ 1');
  const engine = await startDynamoDbLocal();
  const dynamo = new DynamoDBClient({
    endpoint: engine.endpoint,
    region: 'local',
    credentials: { accessKeyId: 'l', secretAccessKey: 'l' },
  });
  const tableName = 'bench-lambda-cpu';
  const conversation = loadScriptedConversation();
  const copies = <T>(list: readonly T[]) => Array.from({ length: INVOCATIONS + 1 }, () => structuredClone(list)).flat();
  const server = await startDeepSeekServer(copies(conversation.responses), copies(conversation.judgeResponses));
  const slack = await startLoopbackSlack({ token: SLACK_TOKEN });
  const receiver = await startLoopbackReceiver();
  const quiet = {
    log: console.log,
    info: console.info,
    warn: console.warn,
    error: console.error,
    debug: console.debug,
  };
  const say = quiet.log;
  const cpu = new Map<string, Sample[]>();
  const record = (name: string, sample: Sample) => cpu.set(name, [...(cpu.get(name) ?? []), sample]);
  try {
    await ensureDiagnosisTable(dynamo, tableName);
    Object.assign(process.env, {
      DIAGNOSIS_TABLE_NAME: tableName,
      DYNAMODB_ENDPOINT: engine.endpoint,
      DIAGNOSIS_MODEL_BASE_URL: server.baseURL,
      DIAGNOSIS_MODEL_API_KEY: 'sk-bench-0123456789',
      DIAGNOSIS_MODEL_ID: 'deepseek-v4-flash',
      SEMANTIC_GUARD: 'enforce',
      KNOWLEDGE_DIR: `${ROOT}examples/knowledge`,
      LOGS_DIR: `${ROOT}examples/logs`,
      MYSQL_CATALOG_PATH: `${ROOT}examples/mysql/catalog.json`,
      MASKING_SECRET: MASKING_SECRET,
      POWERTOOLS_DEV: 'true',
    });
    // NOTE: the functions' log lines and EMF records are formatted as deployed and then dropped here.
    for (const key of ['log', 'info', 'warn', 'error', 'debug'] as const) console[key] = () => undefined;
    const diagnose = ((await import('../functions/diagnose.ts')) as { handler: Handler }).handler;
    const store = createTableStore(parseWorkflowSettings(process.env));
    const local = createLocalDiagnosisWorkflow({
      invoke: async (payload, context) => {
        let answer: unknown;
        const sample = await cpuOf(async () => {
          answer = await diagnose(payload, context as unknown as Context);
        });
        record('Diagnose', sample);
        return answer;
      },
      store,
      logger: createObservability('OnWorkflowStopped').logger,
      delayScale: 0.01,
    });
    const recorded = recordingWorkflow();
    const workflow = { ...recorded.workflow, executionArnOf: local.executionArnOf };
    const clock = () => Date.now();
    const triggerSettings = parseTriggerSettings({
      DIAGNOSIS_TABLE_NAME: tableName,
      DYNAMODB_ENDPOINT: engine.endpoint,
      TRIGGERS: JSON.stringify([
        { source: 'cloudwatch', alarmNamePattern: 'E1001-*', enterpriseId: 'E1001', service: 'payment-gateway' },
        { source: 'alertmanager', labels: { team: 'payments' }, enterpriseId: 'E1001' },
      ]),
      ALERTMANAGER_WEBHOOK_TOKEN: TOKEN,
      TRIGGER_QUIET_PERIOD_SECONDS: '0',
      // NOTE: every measured trigger opens a run that stays QUEUED: the admission bound is above their count.
      TENANT_MAX_OPEN_RUNS: String(4 * INVOCATIONS + 10),
    });
    const api = await composeLocalApi({
      dynamo,
      tableName,
      policy: null,
      maxOpenRuns: 4 * INVOCATIONS + 10,
      workflow,
      trigger: triggerSettings,
      feedbackMasking: { mode: 'identifiers', secret: MASKING_SECRET },
      maskingSecret: MASKING_SECRET,
      pastIncidentRetentionDays: 365,
      log: () => undefined,
    });
    const triggerDeps = await buildTriggerDeps(triggerSettings, clock, dynamo, workflow);
    const trigger = createTriggerHandler(
      { ...triggerDeps, start: { ...triggerDeps.start, workflow } },
      createObservability('Trigger', () => undefined),
    ) as Handler;
    const queued: SlackWork[] = [];
    // NOTE: each mention in its own channel: a channel's cards are paced (one slot a second), and a mention whose
    // card waits for its slot is put back on the queue, not handled: every measured invocation does the same work.
    const channelOf = (call: number) => `C0B${String(call).padStart(6, '0')}`;
    const channels = Array.from({ length: INVOCATIONS + 1 }, (_, call) => channelOf(call));
    const slackFunctions = composeLocalSlack({
      apps: [
        {
          id: 'e1001',
          enterpriseId: 'E1001',
          teamId: 'T0E1001AA',
          channels: channels,
          alertChannel: channelOf(0),
          botTokenSecret: 'SlackBot',
          signingSecretSecret: 'SlackSigning',
        },
      ],
      secretOf: (name) => (name === 'SlackBot' ? SLACK_TOKEN : SLACK_SIGNING),
      apiUrl: slack.apiUrl,
      timeoutMs: 5_000,
      dynamo,
      tableName,
      runs: store,
      workflow,
      maxQueryBytes: undefined,
      masking: { mode: 'identifiers', secret: MASKING_SECRET },
      pastIncidentRetentionDays: 365,
      log: () => undefined,
      enqueue: async (work) => {
        queued.push(work);
      },
      requeue: async () => {
        throw new Error('SlackWork put work back on its queue (a Slack 429): not a warm invocation');
      },
    });
    const answered = <T>(answer: T) => ({ send: async () => answer });
    const deliver = createDeliveryQueueHandler(
      {
        runs: store,
        deliveries: createDynamoDeliveryStore({ client: dynamo, tableName }),
        destinations: new Map([['E1001', [{ id: 'oncall', type: 'slack' as const, url: receiver.url('/slack') }]]]),
        // NOTE: no SNS destination: the one client it would call is not called.
        send: createDestinationSender({ sns: answered({}) as unknown as SNSClient, timeoutMs: 5_000, now: Date.now }),
        now: Date.now,
        leaseMs: 45_000,
      },
      {
        ...createObservability('DeliverResults', () => undefined),
        sqs: answered({}) as unknown as SQSClient,
        queueUrl: undefined,
        maxReceives: MAX_DELIVERY_RECEIVES,
      },
    ) as Handler;
    const alarm = JSON.parse(readFileSync(`${ROOT}examples/triggers/cloudwatch-alarm.json`, 'utf8'));
    const alertmanager = JSON.parse(readFileSync(`${ROOT}test/fixtures/triggers/alertmanager-firing.json`, 'utf8'));
    const context = () => lambdaContext(120_000) as unknown as Context;
    const expectStatus = (name: string, answer: unknown, expected: number) => {
      const status = (answer as { statusCode?: number }).statusCode;
      if (status !== expected)
        throw new Error(
          `${name} answered ${status}, not ${expected}: ${String((answer as { body?: string }).body).slice(0, 200)}`,
        );
    };

    for (let call = 0; call <= INVOCATIONS; call += 1) {
      const measure = async (name: string, invoke: () => Promise<unknown>) => {
        const sample = await cpuOf(invoke);
        // NOTE: the first call of each handler is its cold path (lazy imports, connections): not a warm figure.
        if (call > 0) record(name, sample);
      };
      const runId = `bench-cpu-${process.pid}-${call}`;
      await measure('StartDiagnosis', async () =>
        expectStatus(
          'StartDiagnosis',
          await api.StartDiagnosis(
            httpEvent({
              body: JSON.stringify({ runId, sessionId: 's', enterpriseId: 'E1001', query: conversation.query }),
            }),
            context(),
          ),
          202,
        ),
      );
      const payload = recorded.payloads.at(-1);
      if (payload?.runId !== runId) throw new Error('StartDiagnosis started no workflow execution');
      await local.start(payload);
      await local.idle();
      if (call === 0) cpu.delete('Diagnose');
      const ended = await store.getRun(runId);
      if (ended?.status !== 'SUCCEEDED') throw new Error(`Diagnose ended ${ended?.status}`);
      const status = ended.status;
      receiver.received.length = 0;
      await measure('DeliverResults', async () => {
        const envelope = deliveredEnvelope({ ...ended, status });
        await deliver(sqsEvent(sqsRecord(JSON.stringify(envelope), 1, `delivery-${call}`)), context());
        if (!receiver.received.some((request) => request.path === '/slack')) throw new Error('nothing delivered');
      });
      await measure('GetRun', async () =>
        expectStatus(
          'GetRun',
          await api.GetRun(httpEvent({ method: 'GET', pathParameters: { runId } }), context()),
          200,
        ),
      );
      await measure('RunFeedback', async () =>
        expectStatus(
          'RunFeedback',
          await api.RunFeedback(
            httpEvent({
              path: `/runs/${runId}/feedback`,
              pathParameters: { runId },
              body: JSON.stringify({ verdict: 'CORRECT' }),
            }),
            context(),
          ),
          201,
        ),
      );
      await measure('Trigger', async () => {
        const answer = (await trigger(
          {
            ...alarm,
            id: `bench-${call}`,
            resources: [`arn:aws:cloudwatch:cn-north-1:123456789012:alarm:E1001-bench-${process.pid}-${call}`],
            detail: { ...alarm.detail, alarmName: `E1001-bench-${process.pid}-${call}` },
          },
          context(),
        )) as { outcome: string };
        if (answer.outcome !== 'STARTED') throw new Error(`Trigger: ${answer.outcome}`);
      });
      await measure('TriggerWebhook', async () =>
        expectStatus(
          'TriggerWebhook',
          await api.TriggerWebhook(
            httpEvent({
              path: '/triggers/alertmanager',
              pathParameters: { source: 'alertmanager' },
              iam: false,
              headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
              body: JSON.stringify({ ...alertmanager, groupKey: `{}:{bench="${process.pid}-${call}"}` }),
            }),
            context(),
          ),
          202,
        ),
      );
      const mentionTs = `${1_796_018_000 + call}.000100`;
      await measure('SlackRequests', async () => {
        const body = eventCallbackBody(
          mentionEvent('支付网关 5xx 升高，帮忙看看', mentionTs, { channel: channelOf(call) }),
          `Ev0B${process.pid}X${call}`,
        );
        const event = slackEvent('e1001', 'events', body, 'application/json', {
          secret: SLACK_SIGNING,
          nowMs: Date.now(),
        });
        expectStatus('SlackRequests', await slackFunctions.requests(event, context()), 200);
      });
      const work = queued.splice(0);
      if (work.length !== 1) throw new Error(`SlackRequests queued ${work.length} pieces of work, not 1`);
      const calls = slack.calls.length;
      await measure('SlackWork', async () => {
        const answer = await slackFunctions.work(
          sqsEvent(sqsRecord(JSON.stringify(work[0]), 1, `work-${call}`)) as SQSEvent,
          context(),
        );
        if (answer.batchItemFailures.length > 0)
          throw new Error(`SlackWork failed its message ${JSON.stringify(slack.calls.slice(calls)).slice(0, 600)}`);
      });
      if (slack.calls.length === calls) throw new Error('SlackWork called no Slack method');
    }
  } finally {
    Object.assign(console, quiet);
    await slack.close();
    await receiver.close();
    await server.close();
    dynamo.destroy();
    await engine.stop();
  }
  report(say, cpu);
}

function report(say: (line: string) => void, cpu: Map<string, Sample[]>): void {
  const [load] = loadavg();
  say(`\n## Warm CPU per invocation of each deployed function (${INVOCATIONS} warm after one cold, DynamoDB Local)`);
  say(`node ${process.version}, 1-minute load average ${load?.toFixed(1)} on this machine when the bench ended`);
  say(
    `expected ms = CPU × ${ONE_VCPU_MB} / memory + wait; cost per invocation in µ$ at $${PRICE_PER_GB_SECOND} per GB-s (x86; Arm ×${(ARM_PRICE_PER_GB_SECOND / PRICE_PER_GB_SECOND).toFixed(2)}), requests' own $0.20 per million aside`,
  );
  say(
    `function        CPU median   p95  wait  ${MEMORY_SIZES.map((size) => `${size} MB: ms, µ$`.padStart(17)).join('')}  chosen`,
  );
  for (const [name, samples] of cpu) {
    const median = quantile(
      samples.map((sample) => sample.cpu),
      0.5,
    );
    const p95 = quantile(
      samples.map((sample) => sample.cpu),
      0.95,
    );
    const measuredWait = quantile(
      samples.map((sample) => Math.max(0, sample.wall - sample.cpu)),
      0.5,
    );
    const wait = measuredWait + (name === 'Diagnose' ? MODEL_WAIT_FLOOR_MS : 0);
    const cells = MEMORY_SIZES.map((size) => {
      const ms = expectedMs(median, size) + wait;
      const cost = (Math.ceil(ms) / 1000) * (size / 1024) * PRICE_PER_GB_SECOND;
      return `${ms.toFixed(0)}, ${(cost * 1e6).toFixed(2)}`.padStart(17);
    }).join('');
    say(
      `${name.padEnd(15)} ${median.toFixed(1).padStart(7)} ms ${p95.toFixed(1).padStart(5)} ${wait.toFixed(0).padStart(5)}  ${cells}  ${chooseMemory(median, wait)} MB`,
    );
  }
  say(`(Diagnose's wait includes a model floor of ${MODEL_WAIT_FLOOR_MS} ms: the scripted model answers at once)`);
}

if (import.meta.url === `file://${process.argv[1]}`) await benchLambdaCpu();
