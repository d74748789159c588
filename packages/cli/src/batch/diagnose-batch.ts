/**
 * `npm run diagnose -- --batch requests.jsonl --concurrency K [--cap N] [--scripted-model [--model-latency MS]]`
 * A batch of diagnoses (one JSON request per line: `{ sessionId, enterpriseId, query, runId?, continueSession? }`)
 * through DiagnosisBatch's own definition and the real Diagnose handler, on this machine's embedded defaults; prints
 * each run's outcome, then throughput and p50/p95. `--scripted-model` answers every run with the demo's scripted
 * E1001 conversation from a loopback server (no key), each model round after `--model-latency` milliseconds.
 */
import { readFileSync } from 'node:fs';
import { ulid } from 'ulid';
import { lambdaContext } from '../functions/setup/lambda-context.ts';
import { startLocalRuntime } from './local-runtime.ts';
import { type DeepSeekResponse, startDeepSeekServer } from './replay-model-server.ts';
import { type LocalBatchReport, runLocalBatch } from './run-local-batch.ts';

export interface BatchCommandOptions {
  path: string;
  concurrency: number;
  /** TENANT_MAX_CONCURRENT_RUNS for this run (default: the setting's own). */
  cap?: number;
  scriptedModel: boolean;
  modelLatencyMs: number;
  timeoutSeconds: number;
  json: boolean;
}

/** The requests of a JSON Lines file; a line that is not a JSON object is refused with its number. */
export function parseRequestLines(text: string): Record<string, unknown>[] {
  const requests: Record<string, unknown>[] = [];
  for (const [index, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new Error(`line ${index + 1} is not JSON`);
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw new Error(`line ${index + 1} is not a JSON object`);
    }
    requests.push(value as Record<string, unknown>);
  }
  return requests;
}

/**
 * A loopback model that answers every run's conversation at once: each request gets its own round's response, and
 * each SemanticGuard request the scripted judge's answer.
 */
async function startScriptedModel(count: number, latencyMs: number) {
  const recording = JSON.parse(
    readFileSync(new URL('../examples/demo/e1001-conversation.json', import.meta.url), 'utf8'),
  ) as { responses: DeepSeekResponse[]; judgeResponses: DeepSeekResponse[] };
  const answer = async (request: Record<string, unknown>) => {
    if (latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, latencyMs));
    const messages = Array.isArray(request.messages) ? (request.messages as { role?: unknown }[]) : [];
    const round = messages.filter((message) => message.role === 'assistant').length;
    return structuredClone(recording.responses[Math.min(round, recording.responses.length - 1)] as DeepSeekResponse);
  };
  const judge = async () => {
    if (latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, latencyMs));
    return structuredClone(recording.judgeResponses[0] as DeepSeekResponse);
  };
  return startDeepSeekServer(
    Array.from({ length: count * recording.responses.length * 2 }, () => answer),
    Array.from({ length: count * 2 }, () => judge),
  );
}

const seconds = (milliseconds: number) => `${(milliseconds / 1000).toFixed(2)} s`;

export function renderBatchReport(report: LocalBatchReport, options: BatchCommandOptions, cap: string): string {
  const outcomes = Object.entries(report.outcomes)
    .map(([outcome, count]) => `${count} ${outcome}`)
    .join(', ');
  return [
    `${report.total} requests, concurrency ${options.concurrency}, enterprise cap ${cap}: ${outcomes}`,
    `wall ${seconds(report.wallMs)}, ${report.perMinute.toFixed(1)} runs/min, p50 ${seconds(report.p50Ms)}, p95 ${seconds(report.p95Ms)}, ${report.busyRefusals} busy refusals waited out`,
  ].join('\n');
}

export async function runBatchCommand(options: BatchCommandOptions): Promise<number> {
  let requests: Record<string, unknown>[];
  try {
    requests = parseRequestLines(readFileSync(options.path, 'utf8'));
  } catch (error) {
    process.stderr.write(`${options.path}: ${(error as Error).message}\n`);
    return 1;
  }
  const model = options.scriptedModel ? await startScriptedModel(requests.length, options.modelLatencyMs) : undefined;
  if (model !== undefined) {
    process.env.DIAGNOSIS_MODEL_BASE_URL = model.baseURL;
    process.env.DIAGNOSIS_MODEL_API_KEY = 'scripted-model-no-key';
    process.env.DIAGNOSIS_MODEL_ID = 'deepseek-v4-flash';
  } else if ((process.env.DIAGNOSIS_MODEL_API_KEY ?? '') === '') {
    process.stderr.write('No model key: set DIAGNOSIS_MODEL_API_KEY, or run the batch with --scripted-model.\n');
    return 1;
  }
  if (options.cap !== undefined) process.env.TENANT_MAX_CONCURRENT_RUNS = String(options.cap);
  // NOTE: the handler logs JSON lines and EMF metrics for CloudWatch; a local batch keeps only its own report.
  const original = { log: console.log, info: console.info, warn: console.warn, error: console.error };
  Object.assign(console, {
    log: () => undefined,
    info: () => undefined,
    warn: () => undefined,
    error: () => undefined,
  });
  const runtime = await startLocalRuntime();
  try {
    const handler = (await import('../functions/diagnose.ts')).handler as unknown as (
      event: unknown,
      context: unknown,
    ) => Promise<unknown>;
    const say = (text: string) => {
      if (!options.json) process.stderr.write(`${text}\n`);
    };
    say(
      `DynamoDB Local at ${runtime.endpoint}, table ${runtime.tableName}; model: ${model === undefined ? (process.env.DIAGNOSIS_MODEL_BASE_URL ?? 'DeepSeek') : `SCRIPTED (the demo's hand-written E1001 conversation and judge answer, ${options.modelLatencyMs} ms per round)`}`,
    );
    const report = await runLocalBatch({
      requests,
      concurrency: options.concurrency,
      executionName: `batch-${ulid()}`,
      invoke: (payload) => handler(payload, lambdaContext(options.timeoutSeconds * 1_000)),
    });
    if (options.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    else {
      for (const result of report.results) {
        const item = result as { runId?: string; status?: string; Error?: string };
        process.stdout.write(`${item.runId ?? '(no run)'}  ${item.status ?? item.Error}\n`);
      }
      process.stdout.write(`${renderBatchReport(report, options, process.env.TENANT_MAX_CONCURRENT_RUNS ?? '4')}\n`);
    }
    const failures = report.total - (report.outcomes.PUBLISHED ?? 0) - (report.outcomes.FALLBACK ?? 0);
    return failures === 0 ? 0 : 1;
  } finally {
    Object.assign(console, original);
    await runtime.stop();
    await model?.close();
  }
}
