/**
 * `npm run diagnose -- --batch requests.jsonl --concurrency K [--cap N] [--scripted-model [--model-latency MS]]`
 * A batch of diagnoses (one JSON request per line: `{ sessionId, enterpriseId, query, runId?, continueSession? }`)
 * through DiagnosisBatch's own definition and the real Diagnose handler, on this machine's embedded defaults; prints
 * each run's outcome, then throughput and p50/p95. `--scripted-model` answers every run with the demo's scripted
 * E1001 conversation from a loopback server (no key), each model round after `--model-latency` milliseconds.
 */
import { readFileSync } from 'node:fs';
import {
  type DeepSeekResponse,
  lambdaContext,
  loadScriptedConversation,
  scriptedRound,
  startDeepSeekServer,
} from '@diagnosis/devkit';
import { createLocalDiagnose, createObservability } from '@diagnosis/functions';
import { ulid } from 'ulid';
import { CliError, type CliIo, EXIT, printable } from '../command-line.ts';
import { localLogDestination } from '../local/local-data.ts';
import { startLocalRuntime } from '../local/local-runtime.ts';
import { buildLocalSettings, checkLocalSettings } from '../local/local-settings.ts';
import { SCRIPTED_JUDGE_MODEL_ID } from '../render/scripted-judge.ts';
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
function parseRequestLines(text: string): Record<string, unknown>[] {
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
  const conversation = loadScriptedConversation();
  const answer = async (request: Record<string, unknown>) => {
    if (latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, latencyMs));
    const round = scriptedRound(request, conversation.responses as DeepSeekResponse[]);
    return structuredClone(
      conversation.responses[Math.min(round, conversation.responses.length - 1)] as DeepSeekResponse,
    );
  };
  const judge = async () => {
    if (latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, latencyMs));
    return structuredClone(conversation.judgeResponses[0] as DeepSeekResponse);
  };
  return startDeepSeekServer(
    Array.from({ length: count * conversation.responses.length * 2 }, () => answer),
    Array.from({ length: count * 2 }, () => judge),
  );
}

/**
 * One line per batch item, columns aligned whatever the count: its number (padded to the widest), its run id (or
 * `(no run)`), its status word (PUBLISHED for a published run) or the error a failed item ended with.
 */
export function renderBatchResults(results: readonly unknown[]): string {
  const rows = results.map((result, index) => {
    const item = (result ?? {}) as { runId?: unknown; status?: unknown; Error?: unknown };
    const outcome = typeof item.status === 'string' ? item.status : typeof item.Error === 'string' ? item.Error : '?';
    return [String(index + 1), typeof item.runId === 'string' ? printable(item.runId) : '(no run)', printable(outcome)];
  });
  const widths = [0, 1].map((column) => Math.max(0, ...rows.map((row) => row[column]?.length ?? 0)));
  return rows
    .map(
      ([number = '', runId = '', outcome = '']) =>
        `${number.padStart(widths[0] ?? 0)}  ${runId.padEnd(widths[1] ?? 0)}  ${outcome}\n`,
    )
    .join('');
}

const seconds = (milliseconds: number) => `${(milliseconds / 1000).toFixed(2)} s`;

function renderBatchReport(report: LocalBatchReport, options: BatchCommandOptions, cap: string): string {
  const outcomes = Object.entries(report.outcomes)
    .map(([outcome, count]) => `${count} ${outcome}`)
    .join(', ');
  return [
    `${report.total} requests, concurrency ${options.concurrency}, enterprise cap ${cap}: ${outcomes}`,
    `wall ${seconds(report.wallMs)}, ${report.perMinute.toFixed(1)} runs/min, p50 ${seconds(report.p50Ms)}, p95 ${seconds(report.p95Ms)}, ${report.busyRefusals} busy refusals waited out`,
  ].join('\n');
}

export async function runBatchCommand(options: BatchCommandOptions, io: CliIo): Promise<number> {
  let requests: Record<string, unknown>[];
  try {
    requests = parseRequestLines(readFileSync(options.path, 'utf8'));
  } catch (error) {
    const reason = error instanceof Error && error.message.startsWith('line ') ? error.message : 'cannot be read';
    throw new CliError(EXIT.USAGE, `${printable(options.path)}: ${reason}`);
  }
  if (!options.scriptedModel && (io.env.DIAGNOSIS_MODEL_API_KEY ?? '') === '') {
    throw new CliError(
      EXIT.UNAVAILABLE,
      'no model key: set DIAGNOSIS_MODEL_API_KEY, or run the batch with --scripted-model',
    );
  }
  const model = options.scriptedModel ? await startScriptedModel(requests.length, options.modelLatencyMs) : undefined;
  const overrides: Record<string, string> = {
    ...(model === undefined
      ? {}
      : {
          DIAGNOSIS_MODEL_BASE_URL: model.baseURL,
          DIAGNOSIS_MODEL_API_KEY: 'scripted-model-no-key',
          DIAGNOSIS_MODEL_ID: 'deepseek-v4-flash',
          // NOTE: the judge is the scripted one too, whatever the environment names: its verdicts are hand-written.
          SEMANTIC_GUARD_MODEL_PROFILE: 'deepseek',
          SEMANTIC_GUARD_MODEL_BASE_URL: model.baseURL,
          SEMANTIC_GUARD_MODEL_API_KEY: 'scripted-model-no-key',
          SEMANTIC_GUARD_MODEL_ID: SCRIPTED_JUDGE_MODEL_ID,
        }),
    ...(options.cap === undefined ? {} : { TENANT_MAX_CONCURRENT_RUNS: String(options.cap) }),
  };
  let runtime: Awaited<ReturnType<typeof startLocalRuntime>> | undefined;
  try {
    // NOTE: every setting checked before DynamoDB Local starts.
    checkLocalSettings(io.env, overrides);
    runtime = await startLocalRuntime(io.env, (line) => io.stderr(`${line}\n`));
    const settings = buildLocalSettings(io.env, runtime, overrides);
    const log = localLogDestination(io.env);
    // NOTE: the function's JSON log lines and EMF metrics go to the log file; stdout keeps only the batch's report.
    const { invoke, close } = await createLocalDiagnose(settings, {
      ...createObservability('Diagnose', log.write),
      context: () => lambdaContext(options.timeoutSeconds * 1_000),
    });
    const say = (text: string) => {
      if (!options.json) io.stderr(`${text}\n`);
    };
    say(
      `DynamoDB at ${runtime.endpoint}, table ${runtime.tableName}; model: ${model === undefined ? settings.DIAGNOSIS_MODEL_BASE_URL : `SCRIPTED (the demo's hand-written E1001 conversation and judge answer, ${options.modelLatencyMs} ms per round)`}; log lines: ${log.path}`,
    );
    try {
      const report = await runLocalBatch({
        requests,
        concurrency: options.concurrency,
        executionName: `batch-${ulid()}`,
        invoke: (payload) => invoke(payload),
      });
      if (options.json) io.stdout(`${JSON.stringify(report, null, 2)}\n`);
      else {
        io.stdout(renderBatchResults(report.results));
        io.stdout(`${renderBatchReport(report, options, String(settings.TENANT_MAX_CONCURRENT_RUNS))}\n`);
      }
      const failures = report.total - (report.outcomes.PUBLISHED ?? 0) - (report.outcomes.FALLBACK ?? 0);
      return failures === 0 ? EXIT.OK : EXIT.FAILED;
    } finally {
      await close();
    }
  } finally {
    await runtime?.stop();
    await model?.close();
  }
}
