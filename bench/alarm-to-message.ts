/**
 * Alarm → Slack message on this machine (issue #37): `diagnosis trigger --scripted-model --post-slack` as a person
 * runs it — the example CloudWatch alarm through the real Trigger handler, the run executed by the real Diagnose
 * function (the workflow's local stand-in), the demo's scripted DeepSeek conversation with the SemanticGuard on,
 * DynamoDB Local, the example world — until the Slack message reaches a loopback receiver. DynamoDB requests are
 * counted and timed where the client sends them (Node's `http.client.request.start` diagnostics channel: every request
 * with an `X-Amz-Target`, by operation), with no hop added; `BENCH_DYNAMO_PROXY=1` counts them through a loopback
 * proxy in front of DynamoDB Local instead, as this bench did before 2026-12-03 (the proxy's own work, in this process,
 * then counts as overhead). A counting proxy in front of the scripted model server times the model's requests (with
 * the server's own answer time). Overhead = wall time to the Slack
 * POST − model time − the table's setup. Each run has its own table (a new incident), created before the clock starts
 * (a deployed function's table exists); the command line still checks it (a DescribeTable a deployed function never
 * sends), and the time of that check is taken out of the overhead too. The process is warm after the first run (a
 * deployed function is per cold start: the first run shows the cold path).
 *
 * DynamoDB Local first serves another process's runs (`BENCH_ENGINE_WARMUP`, default 5; 0 measures on a cold engine,
 * as this bench did before 2026-12-03 17:30 UTC); `BENCH_DYNAMODB_ENDPOINT` uses an engine already running instead.
 *
 *   node bench/alarm-to-message.ts [runs]     (default 5)
 * NOTE: over 300 lines on purpose: one bench, alarm to Slack message on this machine: the proxies that count, the
 * warm-up and the spans are one measurement.
 */
import { spawn } from 'node:child_process';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { type ClientRequest, createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDynamoClient, ensureDiagnosisTable } from '@diagnosis/core/store';
import { loadScriptedConversation, startDeepSeekServer, startDynamoDbLocal } from '@diagnosis/devkit';
import { REPO_ROOT } from '../packages/cli/src/local/local-data.ts';
import { runLocalTrigger } from '../packages/cli/src/local/run-local-trigger.ts';

const TABLE_SETUP = ['CreateTable', 'DescribeTable', 'UpdateTimeToLive', 'ListTables'];

interface Proxy {
  url: string;
  /** Requests since the last `take`, by `X-Amz-Target` operation (or `POST`), the time they took, and each one. */
  take(): { operations: Map<string, number>; count: number; busyMs: number; spans: Span[] };
  close(): Promise<void>;
}

async function listen(server: Server): Promise<string> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** One request through a proxy: its operation, when it arrived and when its answer ended (`performance.now()`). */
interface Span {
  name: string;
  start: number;
  end: number;
}

/** Requests counted since the last `take`: by operation, the time they took, and each one's span. */
function createTally() {
  let operations = new Map<string, number>();
  let busyMs = 0;
  let count = 0;
  let spans: Span[] = [];
  return {
    /** One request of operation `name`, from `started` (`performance.now()`) to now. */
    record(name: string, started: number) {
      operations.set(name, (operations.get(name) ?? 0) + 1);
      count += 1;
      busyMs += performance.now() - started;
      spans.push({ name, start: started, end: performance.now() });
    },
    take() {
      const taken = { operations, count, busyMs, spans };
      operations = new Map();
      count = 0;
      busyMs = 0;
      spans = [];
      return taken;
    },
  };
}

/** A loopback proxy that forwards every request to `target` and counts it. */
async function countingProxy(target: string): Promise<Proxy> {
  const upstream = new URL(target);
  const tally = createTally();
  const server = createServer((incoming, outgoing) => {
    const started = performance.now();
    const name = String(incoming.headers['x-amz-target'] ?? `${incoming.method}`).replace(/^DynamoDB_\d+\./, '');
    const forward = httpRequest(
      {
        hostname: upstream.hostname,
        port: upstream.port,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, host: upstream.host },
      },
      (answer: IncomingMessage) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
        answer.on('end', () => tally.record(name, started));
      },
    );
    forward.on('error', () => outgoing.destroy());
    incoming.pipe(forward);
  });
  const url = await listen(server);
  return {
    url,
    take: tally.take,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/**
 * Counts and times every DynamoDB request this process sends (an `X-Amz-Target` of `DynamoDB_…`), from the request's
 * creation to the end of its answer, through Node's HTTP client diagnostics channel: nothing between the client and
 * DynamoDB Local.
 */
function countingChannel(): Proxy {
  const tally = createTally();
  const onRequest = (message: unknown) => {
    const { request } = message as { request: ClientRequest };
    const header = request.getHeader('x-amz-target');
    if (typeof header !== 'string' || !header.startsWith('DynamoDB_')) return;
    const started = performance.now();
    const name = header.replace(/^DynamoDB_\d+\./, '');
    request.on('response', (answer: IncomingMessage) => answer.on('end', () => tally.record(name, started)));
  };
  subscribe('http.client.request.start', onRequest);
  return {
    url: '',
    take: tally.take,
    close: async () => {
      unsubscribe('http.client.request.start', onRequest);
    },
  };
}

/**
 * DynamoDB Local is a JVM that compiles its own code while it serves: its first few hundred requests are slower than
 * its later ones (the same process's warm runs measured 238–292 ms from the event on a fresh engine and 169–186 ms on
 * one that had served one earlier process, 2026-12-03), and DynamoDB itself has no such warm-up. So the engine first
 * serves another process's runs, unmeasured: the measured process is still fresh (its own first run is its cold
 * path, its JIT warms over its runs), only the database is not.
 */
const DEFAULT_ENGINE_WARMUP_RUNS = 5;

/** Runs this bench in another process against `endpoint` for `runs` runs, its output dropped. */
async function warmEngine(endpoint: string, runs: number): Promise<void> {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), String(runs)], {
    env: { ...process.env, BENCH_DYNAMODB_ENDPOINT: endpoint, BENCH_ENGINE_WARMUP: '0', BENCH_TIMELINE: '0' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => {
    errors = `${errors}${chunk.toString('utf8')}`.slice(-2_000);
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`the engine's warm-up process failed (exit ${code}): ${errors}`);
}

export async function benchAlarmToMessage(runs = Number(process.argv[2] ?? 5)): Promise<void> {
  console.log(`\n## alarm → Slack message on this machine (${runs} runs, scripted model, DynamoDB Local)`);
  const warmupRuns = Number(process.env.BENCH_ENGINE_WARMUP ?? DEFAULT_ENGINE_WARMUP_RUNS);
  if (!Number.isSafeInteger(warmupRuns) || warmupRuns < 0) throw new Error('BENCH_ENGINE_WARMUP is a whole number ≥ 0');
  const shared = process.env.BENCH_DYNAMODB_ENDPOINT;
  const engine = shared === undefined ? await startDynamoDbLocal() : { endpoint: shared, stop: async () => undefined };
  if (shared === undefined && warmupRuns > 0) {
    // NOTE: a failed warm-up stops the engine before it fails the bench: nothing is left running.
    await warmEngine(engine.endpoint, warmupRuns).catch(async (error: unknown) => {
      await engine.stop();
      throw error;
    });
    console.log(
      `DynamoDB Local warmed first by another process's ${warmupRuns} runs (BENCH_ENGINE_WARMUP=0: a cold engine)`,
    );
  } else if (shared === undefined) {
    console.log('DynamoDB Local cold: its JVM compiles its own code during the first runs (BENCH_ENGINE_WARMUP=0)');
  }
  const viaProxy = process.env.BENCH_DYNAMO_PROXY === '1';
  const dynamo = viaProxy ? await countingProxy(engine.endpoint) : countingChannel();
  console.log(
    viaProxy
      ? 'DynamoDB requests counted through a loopback proxy (BENCH_DYNAMO_PROXY=1)'
      : 'DynamoDB requests counted at the client (diagnostics channel), sent straight to DynamoDB Local',
  );
  // NOTE: straight to the engine, not through the counting proxy: the bench's own setup.
  const setupClient = createDynamoClient(
    { DIAGNOSIS_TABLE_NAME: 'bench-alarm-setup', DYNAMODB_ENDPOINT: engine.endpoint },
    process.env,
  );
  let slackAt = 0;
  let cpuAtEvent: NodeJS.CpuUsage | null = null;
  let cpuFromEvent = 0;
  const slack = createServer((incoming, outgoing) => {
    slackAt = performance.now();
    if (cpuAtEvent !== null) {
      const used = process.cpuUsage(cpuAtEvent);
      cpuFromEvent = (used.user + used.system) / 1000;
    }
    incoming.resume();
    incoming.on('end', () => outgoing.end('ok'));
  });
  const slackUrl = await listen(slack);
  const data = mkdtempSync(join(tmpdir(), 'diagnosis-alarm-bench-'));
  const rows: {
    wall: number;
    /** The command's own setup before the event reaches the Trigger handler (runtime, composition). */
    beforeEvent: number;
    model: number;
    setup: number;
    /** The table checks after the event (none expected: the command checks the table before). */
    setupAfterEvent: number;
    requests: number;
    /** This process's CPU (user + system) from the event to the Slack POST: the functions', the loopback servers'. */
    cpuMs: number;
    operations: Map<string, number>;
    timeline: Span[];
  }[] = [];
  try {
    for (let run = 1; run <= runs; run += 1) {
      const conversation = loadScriptedConversation();
      const server = await startDeepSeekServer([...conversation.responses], [...conversation.judgeResponses]);
      const model = await countingProxy(server.baseURL.replace(/\/v1\/?$/, ''));
      let output = '';
      try {
        await ensureDiagnosisTable(setupClient, `bench-alarm-${process.pid}-${run}`);
        dynamo.take();
        slackAt = 0;
        cpuAtEvent = null;
        cpuFromEvent = 0;
        let eventAt = 0;
        const started = performance.now();
        if (process.env.BENCH_TIMELINE === '1') console.log(`run ${run} starts at ${started.toFixed(0)} ms`);
        const code = await runLocalTrigger(
          {
            eventPath: `${REPO_ROOT}/examples/triggers/cloudwatch-alarm.json`,
            stage: 'default',
            timeoutSeconds: 120,
            json: true,
            postSlackUrl: `${slackUrl}/services/bench`,
            settings: {
              DIAGNOSIS_MODEL_BASE_URL: `${model.url}/v1`,
              DIAGNOSIS_MODEL_API_KEY: 'scripted-bench-no-key',
              DIAGNOSIS_MODEL_ID: 'deepseek-v4-flash',
              SEMANTIC_GUARD: 'enforce',
            },
            banner: '',
            onEventSent: () => {
              eventAt = performance.now();
              cpuAtEvent = process.cpuUsage();
            },
          },
          {
            stdout: (text) => {
              output += text;
            },
            stderr: () => undefined,
            env: {
              ...process.env,
              DIAGNOSIS_LOCAL_DATA: data,
              DYNAMODB_ENDPOINT: viaProxy ? dynamo.url : engine.endpoint,
              DIAGNOSIS_TABLE_NAME: `bench-alarm-${process.pid}-${run}`,
            },
            stderrIsTTY: false,
            onInterrupt: () => () => undefined,
          },
        );
        if (slackAt === 0) throw new Error(`run ${run}: no Slack message (exit ${code}): ${output.slice(0, 200)}`);
        if (eventAt === 0) throw new Error(`run ${run}: the event never reached the Trigger handler`);
        const taken = dynamo.take();
        const modelTaken = model.take();
        // NOTE: the table's creation for this run's fresh table is the bench's, not the run's.
        for (const setup of TABLE_SETUP) taken.operations.delete(setup);
        rows.push({
          wall: slackAt - started,
          beforeEvent: eventAt - started,
          model: modelTaken.busyMs,
          setup: taken.spans
            .filter((span) => TABLE_SETUP.includes(span.name))
            .reduce((sum, span) => sum + span.end - span.start, 0),
          setupAfterEvent: taken.spans
            .filter((span) => TABLE_SETUP.includes(span.name) && span.start >= eventAt)
            .reduce((sum, span) => sum + span.end - span.start, 0),
          requests: [...taken.operations.values()].reduce((sum, count) => sum + count, 0),
          cpuMs: cpuFromEvent,
          operations: taken.operations,
          timeline: [
            ...taken.spans.map((span) =>
              TABLE_SETUP.includes(span.name) ? { ...span, name: `(setup) ${span.name}` } : span,
            ),
            ...modelTaken.spans.map((span) => ({ ...span, name: `model ${span.name}` })),
            { name: 'event to the Trigger handler', start: eventAt, end: eventAt },
            { name: 'Slack POST', start: slackAt, end: slackAt },
          ]
            .map((span) => ({ ...span, start: span.start - started, end: span.end - started }))
            .sort((a, b) => a.start - b.start),
        });
      } finally {
        await model.close();
        await server.close();
      }
    }
  } finally {
    slack.closeAllConnections();
    slack.close();
    await dynamo.close();
    setupClient.destroy();
    await engine.stop();
    rmSync(data, { recursive: true, force: true });
  }
  console.log(
    'run  wall to Slack POST  model time  table check  overhead  command setup  overhead from the event  DynamoDB requests',
  );
  const overhead = (row: (typeof rows)[number]) => row.wall - row.model - row.setup;
  // NOTE: from the event's arrival at the Trigger handler: what a warm deployed Trigger and Diagnose spend; the
  // command's setup before it (the local runtime, composing the functions) is a deployed function's cold start.
  const fromEvent = (row: (typeof rows)[number]) => row.wall - row.beforeEvent - row.model - row.setupAfterEvent;
  for (const [index, row] of rows.entries()) {
    console.log(
      `${String(index + 1).padStart(3)}  ${row.wall.toFixed(0).padStart(17)} ms  ${row.model.toFixed(0).padStart(7)} ms  ${row.setup.toFixed(0).padStart(8)} ms  ${overhead(row).toFixed(0).padStart(5)} ms  ${row.beforeEvent.toFixed(0).padStart(10)} ms  ${fromEvent(row).toFixed(0).padStart(20)} ms  ${row.requests}`,
    );
  }
  const medianOf = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)] ?? 0;
  };
  const warm = rows.slice(1);
  console.log(
    `overhead, warm runs: median ${medianOf(warm.map(overhead)).toFixed(0)} ms from the command's start, ${medianOf(warm.map(fromEvent)).toFixed(0)} ms from the event`,
  );
  // NOTE: Lambda allots CPU by memory (1,769 MB is one vCPU): the same CPU time at a function's share of a vCPU.
  const cpu = medianOf(warm.map((row) => row.cpuMs));
  console.log(
    `CPU from the event to the Slack POST, warm runs: median ${cpu.toFixed(0)} ms (this process: the Trigger, Diagnose and delivery functions, the loopback model and Slack servers); at 256 MB (${(256 / 1769).toFixed(3)} vCPU) ${(cpu / (256 / 1769)).toFixed(0)} ms, at 512 MB ${(cpu / (512 / 1769)).toFixed(0)} ms, at 1,024 MB ${(cpu / (1024 / 1769)).toFixed(0)} ms, at 1,769 MB ${cpu.toFixed(0)} ms`,
  );
  const last = rows.at(-1);
  // BENCH_TIMELINE=1: the last run's requests in order (ms since the trigger began), and the idle time before each
  // one since the previous answer ended: where the time that is neither DynamoDB's nor the model's goes.
  if (last !== undefined && process.env.BENCH_TIMELINE === '1') {
    console.log('last run:   start    took    idle before  request');
    let busyUntil = 0;
    for (const span of last.timeline) {
      const idle = Math.max(0, span.start - busyUntil);
      busyUntil = Math.max(busyUntil, span.end);
      console.log(
        `${span.start.toFixed(1).padStart(13)} ${(span.end - span.start).toFixed(1).padStart(7)} ${idle.toFixed(1).padStart(14)}  ${span.name}`,
      );
    }
  }
  if (last !== undefined) {
    console.log(
      `DynamoDB requests of the last run by operation: ${[...last.operations]
        .sort((a, b) => b[1] - a[1])
        .map(([name, count]) => `${name} ${count}`)
        .join(', ')}`,
    );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchAlarmToMessage();
