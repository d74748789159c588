/**
 * Bounded audit writes on DynamoDB Local (issue #14): one model round that asks for 200 tool calls.
 *
 * 1. Through the Diagnose handler as its cold start builds it (settings, dependencies, the real provider against the
 *    loopback DeepSeek-format server, the local adapters on `examples/`): the deployed defaults (the round is
 *    discarded, ROUND_TOOL_CALL_LIMIT), and with the round and refusal limits raised to 200 so every call reaches the
 *    boundary and is audited — once with the store's default bound (16 puts in flight) and once unbounded, as the
 *    store was before (`maxWritesInFlight: Infinity`, the same code otherwise). Variants are interleaved run by run.
 * 2. The store alone: a burst of one step and 200 tool items, and the time `flush()` takes, per bound.
 *
 * Peak in flight is counted by a middleware on the DynamoDB client (test/support/write-counter.ts), not timed.
 * Run: `node bench/audit-writes.ts` (also part of `npm run bench`). BENCH_AUDIT_WRITES_RUNS sets the runs per variant.
 */
import { parseDiagnosisSettings } from '@diagnosis/core/config';
import { createDynamoClient, createDynamoStores, ensureDiagnosisTable } from '@diagnosis/core/store';
import { lambdaContext, startDeepSeekServer, startDynamoDbLocal, wireText, wireToolCalls } from '@diagnosis/devkit';
import { createObservability } from '@diagnosis/functions';
import { buildDiagnosisDependencies } from '../functions/diagnose/dependencies.ts';
import { createDiagnoseHandler } from '../functions/diagnose/diagnose-handler.ts';
import { STORE_T0, stepEvent, toolEvent } from '../test/support/audit-events.ts';
import { draftAnswer, noConclusionDraft } from '../test/support/run-fixtures.ts';
import { countWritesInFlight } from '../test/support/write-counter.ts';

const RUNS = Number(process.env.BENCH_AUDIT_WRITES_RUNS ?? 15);
const TABLE = 'bench-audit-writes';

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};

/** 200 calls in one round: 150 valid knowledge lookups (distinct queries) and 50 whose input fails the schema. */
function floodRound() {
  return wireToolCalls(
    Array.from({ length: 200 }, (_, index) =>
      index % 4 === 3
        ? { id: `call_${index}`, name: 'query_logs', arguments: { input: { service: 'order-service', level: 'LOUD' } } }
        : {
            id: `call_${index}`,
            name: 'lookup_knowledge',
            arguments: { input: { query: `订单失败 连接池 ${index}`, service: 'payment-gateway' } },
          },
    ),
  );
}

interface Variant {
  name: string;
  environment: Record<string, string>;
  /** Overrides the store's bound (the unbounded baseline); absent: what the settings say. */
  maxWritesInFlight?: number;
  /** The rounds the model answers: the flood, then the Draft when the run goes on. */
  rounds: () => ReturnType<typeof wireToolCalls>[];
}

const RAISED = { DIAGNOSIS_MAX_TOOL_CALLS_PER_ROUND: '200', DIAGNOSIS_MAX_REJECTED_TOOL_CALLS: '200' };
const VARIANTS: Variant[] = [
  { name: 'deployed defaults (round discarded)', environment: {}, rounds: () => [floodRound()] },
  {
    name: 'limits raised, 16 in flight (default)',
    environment: RAISED,
    rounds: () => [floodRound(), wireText(draftAnswer(noConclusionDraft()))],
  },
  {
    name: 'limits raised, unbounded (before)',
    environment: RAISED,
    maxWritesInFlight: Number.POSITIVE_INFINITY,
    rounds: () => [floodRound(), wireText(draftAnswer(noConclusionDraft()))],
  },
];

async function handlerFor(variant: Variant, endpoint: string, baseURL: string) {
  const settings = parseDiagnosisSettings({
    DIAGNOSIS_TABLE_NAME: TABLE,
    DYNAMODB_ENDPOINT: endpoint,
    DIAGNOSIS_MODEL_BASE_URL: baseURL,
    DIAGNOSIS_MODEL_API_KEY: 'sk-bench',
    SEMANTIC_GUARD: 'off',
    ...variant.environment,
  });
  const dynamo = createDynamoClient(settings, process.env);
  const counter = countWritesInFlight(dynamo);
  const deps = await buildDiagnosisDependencies(settings, dynamo);
  const bound = variant.maxWritesInFlight;
  const observability = createObservability('Diagnose');
  const handler = createDiagnoseHandler(
    bound === undefined
      ? deps
      : {
          ...deps,
          createStore: () => createDynamoStores({ client: dynamo, tableName: TABLE, maxWritesInFlight: bound }),
        },
    observability,
  );
  return { handler, counter, dynamo };
}

export async function benchAuditWrites(): Promise<void> {
  const engine = await startDynamoDbLocal();
  const server = await startDeepSeekServer();
  // NOTE: the handler's log line and EMF metrics per run are not this benchmark's output.
  const previous = {
    POWERTOOLS_METRICS_DISABLED: process.env.POWERTOOLS_METRICS_DISABLED,
    POWERTOOLS_LOG_LEVEL: process.env.POWERTOOLS_LOG_LEVEL,
  };
  Object.assign(process.env, { POWERTOOLS_METRICS_DISABLED: 'true', POWERTOOLS_LOG_LEVEL: 'SILENT' });
  const built = await Promise.all(VARIANTS.map((variant) => handlerFor(variant, engine.endpoint, server.baseURL)));
  try {
    const [first] = built;
    if (first === undefined) throw new Error('no variant');
    await ensureDiagnosisTable(first.dynamo, TABLE);
    const times = VARIANTS.map(() => [] as number[]);
    const peaks = VARIANTS.map(() => 0);
    const writes = VARIANTS.map(() => 0);
    const outcomes = VARIANTS.map(() => new Set<string>());
    for (let run = -2; run < RUNS; run += 1) {
      for (const [index, variant] of VARIANTS.entries()) {
        const { handler, counter } = built[index] as (typeof built)[number];
        counter.reset();
        server.script.push(...variant.rounds());
        const begin = performance.now();
        const result = await handler(
          {
            runId: `bench-${index}-${run + 2}-${Date.now().toString(36)}`,
            sessionId: 'bench',
            enterpriseId: 'E1001',
            query: 'E1001 的订单从 14:05 开始失败，为什么？',
          },
          lambdaContext(60_000),
        );
        const elapsed = performance.now() - begin;
        if (run < 0) continue; // warm-up
        times[index]?.push(elapsed);
        peaks[index] = Math.max(peaks[index] ?? 0, counter.auditPeak());
        writes[index] = counter.writes().length;
        outcomes[index]?.add(`${result.status} ${result.stopReason ?? '—'}`);
      }
    }
    console.log(
      `\n## bounded audit writes: one round of 200 tool calls through the Diagnose handler (${RUNS} runs each)`,
    );
    for (const [index, variant] of VARIANTS.entries()) {
      const values = times[index] ?? [];
      console.log(
        `${variant.name.padEnd(40)} run median ${percentile(values, 50).toFixed(1)} ms  p95 ${percentile(values, 95).toFixed(1)} ms  audit puts ${writes[index]}  peak in flight ${peaks[index]}  (${[...(outcomes[index] ?? [])].join(', ')})`,
      );
    }

    console.log(
      `\n## bounded audit writes: the store alone, one step + 200 tool items in one burst (${RUNS} runs each)`,
    );
    const bounds = [Number.POSITIVE_INFINITY, 16, 4];
    const flushes = bounds.map(() => [] as number[]);
    const storePeaks = bounds.map(() => 0);
    const client = createDynamoClient({ DIAGNOSIS_TABLE_NAME: TABLE, DYNAMODB_ENDPOINT: engine.endpoint }, process.env);
    const counter = countWritesInFlight(client);
    try {
      for (let run = -2; run < RUNS; run += 1) {
        for (const [index, bound] of bounds.entries()) {
          const store = createDynamoStores({
            client,
            tableName: TABLE,
            now: () => STORE_T0,
            maxWritesInFlight: bound,
          });
          const runId = `burst-${index}-${run + 2}-${Date.now().toString(36)}`;
          // NOTE: an enterprise of its own for each run this part leaves open (the admission caps open runs per one).
          await store.startRun({
            runId,
            sessionId: 'bench',
            enterpriseId: `E${2000 + (run + 2) * bounds.length + index}`,
            query: 'q',
            continueSession: false,
          });
          counter.reset();
          const begin = performance.now();
          await store.onModelStep(stepEvent(runId, 1));
          for (let call = 0; call < 200; call += 1) await store.onToolInvocation(toolEvent(runId, `call_${call}`));
          await store.flush();
          const elapsed = performance.now() - begin;
          if (run < 0) continue;
          flushes[index]?.push(elapsed);
          storePeaks[index] = Math.max(storePeaks[index] ?? 0, counter.auditPeak());
        }
      }
    } finally {
      client.destroy();
    }
    for (const [index, bound] of bounds.entries()) {
      const values = flushes[index] ?? [];
      console.log(
        `${`maxWritesInFlight ${bound === Number.POSITIVE_INFINITY ? 'unbounded (before)' : bound}`.padEnd(40)} burst to flushed median ${percentile(values, 50).toFixed(1)} ms  p95 ${percentile(values, 95).toFixed(1)} ms  peak in flight ${storePeaks[index]}`,
      );
    }
  } finally {
    for (const [key, value] of Object.entries(previous)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    for (const { dynamo } of built) dynamo.destroy();
    await server.close();
    await engine.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchAuditWrites();
