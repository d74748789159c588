/**
 * `npm run eval -- [--scenarios DIR] [--only ID,…] [--live] [--concurrency K] [--json] [--html FILE] …`: the
 * scorecard of a scenario corpus. Exit 0 only when every scenario scores as expected (offline: its scripted verdict)
 * and every probe passes; 1 when one does not; 64 (EX_USAGE, as every command of the bin) for a bad command line or
 * corpus.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { PriceError, parsePrice } from './price.ts';
import { progressLine, renderHtml, renderTable } from './render.ts';
import { mysqlReachable, REPO_ROOT, runEval } from './run-eval.ts';
import { loadCorpus, ScenarioError } from './scenario.ts';

export const EVAL_HELP = `Usage: npm run eval -- [options]

Scores a corpus of incident scenarios (README "Evaluation"). Offline (the default), every probe runs on the real
adapters and every scenario with a scripted.json replays its scripted conversation through the real provider,
handler, guards and release (DynamoDB Local, the scenario's own world). --live runs every scenario against the model
configured by DIAGNOSIS_MODEL_BASE_URL / DIAGNOSIS_MODEL_ID / DIAGNOSIS_MODEL_API_KEY instead.

Options:
  --scenarios DIR       the corpus: a folder of scenario folders (default: eval/scenarios)
  --only ID,...         run only these scenarios
  --live                use the configured model instead of the scripted replays
  --concurrency K       scenarios in parallel, 1-16 (default 4 offline, 2 live)
  --json                print the whole report as JSON on stdout (no table)
  --html FILE           also write a self-contained scorecard page
  --price SPEC          USD per million tokens, e.g. input=0.28,cached=0.028,output=0.42 (or EVAL_PRICE)
  --mysql URL           a MySQL/MariaDB URL that may create and drop databases (or EVAL_MYSQL_URL;
                        default mysql://root@127.0.0.1:3306/test when it answers)
  --scenario-tokens N   live: each run's token budget (DIAGNOSIS_MAX_TOTAL_TOKENS for the run)
  --total-tokens N      live: stop starting scenarios once N tokens are spent (default 2000000)
  --timeout SECONDS     each run's deadline (default 120 offline, 300 live)
  -h, --help            this text

Exit status: 0 every scenario scored as expected and every probe passed; 1 otherwise; 64 bad options or corpus.`;

/** Bad options or a bad corpus: the bin's usage code (EX_USAGE). */
const EXIT_USAGE = 64;

const LIVE_KEYS = [
  'DIAGNOSIS_MODEL_PROFILE',
  'DIAGNOSIS_MODEL_BASE_URL',
  'DIAGNOSIS_MODEL_ID',
  'DIAGNOSIS_MODEL_API_KEY',
  'DIAGNOSIS_MODEL_TIMEOUT_MS',
  'SEMANTIC_GUARD',
  'SEMANTIC_GUARD_MODEL_ID',
  'SEMANTIC_GUARD_MODEL_PROFILE',
  'SEMANTIC_GUARD_MODEL_BASE_URL',
  'SEMANTIC_GUARD_MODEL_API_KEY',
  'DIAGNOSIS_MAX_MODEL_CALLS',
  'DIAGNOSIS_MAX_TOTAL_TOKENS',
  'DIAGNOSIS_MAX_TOOL_CALLS',
  'DIAGNOSIS_FINAL_ROUND_RESERVE_MS',
  'DIAGNOSIS_MAX_INPUT_BYTES',
  'DIAGNOSIS_TIMEZONE',
] as const;

const DEFAULT_MYSQL_URL = 'mysql://root@127.0.0.1:3306/test';

export interface EvalIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Whether stderr is a terminal (a redrawn progress bar) or not (one line per finished scenario). */
  interactive: boolean;
  env: Readonly<Record<string, string | undefined>>;
  /** How messages name the command (`eval`; the bin's `diagnosis eval`). */
  name?: string;
}

class UsageError extends Error {}

function positiveInteger(value: string | undefined, name: string, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,9}$/.test(value) || Number(value) < 1 || Number(value) > max) {
    throw new UsageError(`${name} must be a whole number from 1 to ${max}`);
  }
  return Number(value);
}

export async function evalMain(argv: readonly string[], io: EvalIo): Promise<number> {
  const name = io.name ?? 'eval';
  let values: ReturnType<typeof parse>['values'];
  const parse = (args: readonly string[]) =>
    parseArgs({
      args: [...args],
      strict: true,
      allowPositionals: false,
      options: {
        scenarios: { type: 'string' },
        only: { type: 'string' },
        live: { type: 'boolean', default: false },
        concurrency: { type: 'string' },
        json: { type: 'boolean', default: false },
        html: { type: 'string' },
        price: { type: 'string' },
        mysql: { type: 'string' },
        'scenario-tokens': { type: 'string' },
        'total-tokens': { type: 'string' },
        timeout: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  try {
    values = parse(argv).values;
  } catch (error) {
    io.stderr(
      `${name}: ${(error as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? 'unknown option' : 'bad option'} (${firstLine(error)}); see --help\n`,
    );
    return EXIT_USAGE;
  }
  if (values.help) {
    io.stdout(`${EVAL_HELP}\n`);
    return 0;
  }
  const live = values.live;
  let concurrency: number;
  let scenarioTokens: number | undefined;
  let totalTokens: number;
  let timeoutSeconds: number;
  let price: ReturnType<typeof parsePrice>;
  let scenarios: ReturnType<typeof loadCorpus>;
  try {
    concurrency = positiveInteger(values.concurrency, '--concurrency', 16) ?? (live ? 2 : 4);
    scenarioTokens = positiveInteger(values['scenario-tokens'], '--scenario-tokens', 10_000_000);
    totalTokens = positiveInteger(values['total-tokens'], '--total-tokens', 1_000_000_000) ?? 2_000_000;
    timeoutSeconds = positiveInteger(values.timeout, '--timeout', 900) ?? (live ? 300 : 120);
    price = parsePrice(values.price ?? io.env.EVAL_PRICE);
    const only = values.only
      ?.split(',')
      .map((id) => id.trim())
      .filter((id) => id !== '');
    scenarios = loadCorpus(resolve(values.scenarios ?? resolve(REPO_ROOT, 'eval/scenarios')), only);
  } catch (error) {
    if (error instanceof UsageError || error instanceof PriceError || error instanceof ScenarioError) {
      io.stderr(`${name}: ${error.message}\n`);
      return EXIT_USAGE;
    }
    throw error;
  }
  if (scenarios.length === 0) {
    io.stderr(`${name}: the corpus holds no scenario\n`);
    return EXIT_USAGE;
  }

  const liveSettings: Record<string, string> = {};
  if (live) {
    for (const key of LIVE_KEYS) {
      const value = io.env[key];
      if (value !== undefined && value !== '') liveSettings[key] = value;
    }
    if (liveSettings.DIAGNOSIS_MODEL_API_KEY === undefined) {
      io.stderr(
        `${name}: --live needs DIAGNOSIS_MODEL_API_KEY (and DIAGNOSIS_MODEL_BASE_URL / _ID for a non-DeepSeek model)\n`,
      );
      return EXIT_USAGE;
    }
    if (scenarioTokens !== undefined) liveSettings.DIAGNOSIS_MAX_TOTAL_TOKENS = String(scenarioTokens);
  }

  const givenMysql = values.mysql ?? io.env.EVAL_MYSQL_URL;
  let mysqlAdminUrl: string | undefined = givenMysql ?? DEFAULT_MYSQL_URL;
  if (!(await mysqlReachable(mysqlAdminUrl))) {
    if (givenMysql !== undefined) {
      io.stderr(`${name}: the MySQL server of --mysql / EVAL_MYSQL_URL does not answer\n`);
      return EXIT_USAGE;
    }
    io.stderr(`${name}: no MySQL server at the default URL: query_mysql answers NOT_CONFIGURED in every scenario\n`);
    mysqlAdminUrl = undefined;
  }

  const running = new Set<string>();
  const total = scenarios.length;
  const report = await runEval(scenarios, {
    mode: live ? 'live' : 'offline',
    concurrency,
    price,
    mysqlAdminUrl,
    liveSettings,
    totalTokenCap: totalTokens,
    runTimeoutMs: timeoutSeconds * 1_000,
    dynamoEndpoint: io.env.DYNAMODB_ENDPOINT,
    onProgress: ({ kind, scenario, run, done }) => {
      if (kind === 'start') running.add(scenario.id);
      else running.delete(scenario.id);
      if (io.interactive) io.stderr(`\r\x1b[2K${progressLine(done, total, [...running])}`);
      else if (kind === 'end' && run !== undefined) {
        const verdict = run.status === 'RAN' ? run.verdict : run.status;
        io.stderr(
          `[${String(done).padStart(String(total).length)}/${total}] ${run.passed ? 'as expected' : 'unexpected '}  ${scenario.id} ${verdict}\n`,
        );
      }
    },
  });
  if (io.interactive) io.stderr('\r\x1b[2K');
  if (values.html !== undefined) {
    writeFileSync(values.html, renderHtml(report));
    io.stderr(`${name}: scorecard page written to ${values.html}\n`);
  }
  io.stdout(values.json ? `${JSON.stringify(report, null, 2)}\n` : renderTable(report));
  const errorsOrProbes = report.scenarios.some(
    (run) => run.status === 'ERROR' || run.probes.some((probe) => !probe.passed),
  );
  if (live) return errorsOrProbes ? 1 : 0;
  return report.summary.allAsExpected ? 0 : 1;
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return (message.split('\n')[0] ?? '').slice(0, 200);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const code = await evalMain(process.argv.slice(2), {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    interactive: process.stderr.isTTY === true,
    env: process.env,
  }).catch((error: unknown) => {
    process.stderr.write(`eval: stopped by an unexpected ${(error as { name?: string })?.name ?? 'error'}\n`);
    return 1;
  });
  process.exit(code);
}
