/**
 * `npm run bench:smoke`: every benchmark of bench/ run once, in its own process, with the fewest iterations it takes
 * (one where it has a count), so a bench that no longer starts or that measures nothing fails CI instead of waiting
 * for the next person who runs it. The figures it prints are not figures: one iteration under CI's load.
 *
 * A bench fails the smoke when it exits non-zero or times out, prints a figure that is not a number (`NaN`,
 * `Infinity`, a sample of `n=0`), or prints no non-zero figure at all. Every `bench/*.ts` must have an entry here (or
 * be listed in BENCH_HELPERS as a module that measures nothing), so a new bench is smoke-run from its first commit.
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = new URL('..', import.meta.url).pathname;

/** Modules of bench/ that measure nothing themselves: shared figures, a simulation, and `npm run bench`'s sequence. */
export const BENCH_HELPERS: ReadonlySet<string> = new Set(['latency.ts', 'run-all.ts', 'simulated-stream-mapping.ts']);

interface SmokeRun {
  args?: readonly string[];
  env?: Readonly<Record<string, string>>;
}

/** Each bench's one-iteration run: its own count settings set to their smallest. */
export const SMOKE_RUNS: Readonly<Record<string, SmokeRun>> = {
  'alarm-to-message.ts': { args: ['1'], env: { BENCH_ENGINE_WARMUP: '0' } },
  'async-api.ts': { env: { BENCH_ASYNC_STARTS: '1', BENCH_ASYNC_READS: '1', BENCH_ASYNC_CANCELS: '1' } },
  'audit-store.ts': { env: { BENCH_AUDIT_RUNS: '1' } },
  'audit-writes.ts': { env: { BENCH_AUDIT_WRITES_RUNS: '1' } },
  'delivery.ts': { env: { BENCH_DELIVERY_RUNS: '1' } },
  'evidence-adapters.ts': { env: { BENCH_LOG_LINES: '1000' } },
  'harness-overhead.ts': { env: { BENCH_RUNS: '1' } },
  'knowledge-index.ts': { env: { BENCH_KNOWLEDGE_SIZES: '10' } },
  'lambda-bundle.ts': { env: { BENCH_COLD_RUNS: '1', BENCH_FIRST_RUNS: '1', BENCH_CALLGRIND_FUNCTIONS: 'GetRun' } },
  'lambda-cpu.ts': { env: { BENCH_CPU_INVOCATIONS: '1' } },
  'masking-accuracy.ts': {},
  'masking.ts': { env: { BENCH_MASKING_ITERATIONS: '1' } },
  'past-incident-retrieval.ts': { env: { BENCH_CALLS: '1', BENCH_INCIDENT_SIZES: '100' } },
  'past-incident-tokens.ts': {},
  'request-tokens.ts': {},
  'run-growth.ts': { args: ['--calls', '2'] },
  'slack-card.ts': { env: { BENCH_SLACK_RUNS: '1', BENCH_SLACK_WARMUP: '0' } },
  'trigger-latency.ts': { env: { BENCH_TRIGGER_EVENTS: '1' } },
};

/** The benches of bench/ with no smoke entry (a new bench must get one). */
export function benchesWithoutSmoke(files: readonly string[]): string[] {
  return files.filter((file) => file.endsWith('.ts') && !BENCH_HELPERS.has(file) && !(file in SMOKE_RUNS));
}

/** Why a bench's one run failed the smoke, or `null` when it ran and measured something. */
export function smokeFailure(exitCode: number | null, output: string): string | null {
  if (exitCode !== 0) return exitCode === null ? 'killed (a signal or the time limit)' : `exited ${exitCode}`;
  const notANumber = /\bNaN\b|-?\bInfinity\b|\(n=0\)/.exec(output);
  if (notANumber !== null) return `printed a figure that is not one: ${notANumber[0]}`;
  // NOTE: a figure is a number in a measurement line; the Node version line (`node v24…`) is not one.
  const figures = output
    .split('\n')
    .filter((line) => !/\bnode v\d/.test(line))
    .some((line) => /(?<![\w.])(?:0*[1-9]\d*(?:[.,]\d+)?|0?\.\d*[1-9]\d*)(?![\w])/.test(line));
  return figures ? null : 'printed no figure';
}

const TIMEOUT_MS = 15 * 60_000;

function runBench(file: string, run: SmokeRun): Promise<{ code: number | null; output: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join('bench', file), ...(run.args ?? [])], {
      cwd: ROOT,
      env: { ...process.env, ...run.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), TIMEOUT_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: signal === null ? code : null, output, ms: performance.now() - started });
    });
  });
}

if (import.meta.main) {
  const only = process.argv.slice(2);
  const files = readdirSync(join(ROOT, 'bench')).sort();
  const missing = benchesWithoutSmoke(files);
  let failed = missing.length;
  for (const file of missing) console.log(`FAIL ${file}: no smoke run (scripts/bench-smoke.ts)`);
  for (const [file, run] of Object.entries(SMOKE_RUNS)) {
    if (only.length > 0 && !only.includes(file)) continue;
    if (!files.includes(file)) {
      console.log(`FAIL ${file}: listed but not in bench/`);
      failed += 1;
      continue;
    }
    const { code, output, ms } = await runBench(file, run);
    const failure = smokeFailure(code, output);
    if (failure === null) {
      console.log(`ok   ${file} (${(ms / 1000).toFixed(1)} s)`);
    } else {
      failed += 1;
      console.log(`FAIL ${file}: ${failure}\n${output.split('\n').slice(-15).join('\n')}`);
    }
  }
  if (failed > 0) {
    console.log(`bench smoke: ${failed} failed`);
    process.exit(1);
  }
}
