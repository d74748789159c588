// NOTE: over 300 lines on purpose: one command (diagnosis eval) with its subcommands (run, capture, compare, cloud-
// opsbench) sharing one option table.
import { readFileSync } from 'node:fs';
import { CliError, type CliIo, type Command, EXIT, type ParsedArgs, printable, usageError } from '../command-line.ts';
import { STORE_SETTINGS } from '../setting-keys.ts';

/** The options of `eval capture`; refused on a scorecard run, which has none of them. */
const CAPTURE_OPTIONS = ['out', 'table', 'time-zone', 'category'] as const;
/** The options of `eval cloud-opsbench` alone (its `--category` is the benchmark's fault category). */
const OPSBENCH_OPTIONS = ['system', 'case', 'limit'] as const;
/** The scorecard's and capture's options, refused on `eval cloud-opsbench`. */
const NOT_OPSBENCH_OPTIONS = ['scenarios', 'only', 'html', 'mysql', 'out', 'table', 'time-zone'] as const;

/**
 * `diagnosis eval`: the scorecard of a scenario corpus (packages/eval). This entry gives the bin its help and strict
 * option parsing; the options are handed on to the eval runner as they were given.
 */
export const evalCommand: Command = {
  name: 'eval',
  summary: 'score a corpus of incident scenarios (offline replays, or --live against your model)',
  synopsis: '[options]  |  capture <runId>  |  compare <a.json> <b.json> [--json]  |  cloud-opsbench <dir>',
  description: [
    'Offline (the default): every probe calls the real adapters on the scenario’s world with its tenant, and every',
    'scenario with a scripted.json replays its hand-written conversation through the real provider, Diagnose',
    'function, guards and release (DynamoDB Local, MariaDB for worlds with MySQL). --live runs every scenario',
    'against the model of DIAGNOSIS_MODEL_BASE_URL / DIAGNOSIS_MODEL_ID / DIAGNOSIS_MODEL_API_KEY instead.',
    'Prints a table (a progress line on stderr while it runs); CONFIDENTLY_WRONG is the worst verdict.',
    '`eval capture <runId>` writes a rated run of the table as a scenario folder: its query and expectation from the',
    'feedback, a recorded world (what each tool call saw; anything else NOT_RECORDED) and, where the audit holds the',
    'model responses, a recorded scripted.json (read-only: Get and Query only; --table reads a deployed table with',
    'your AWS credentials). `eval compare a.json b.json` shows what regressed between two --json scorecards.',
    '`eval cloud-opsbench <dataset-dir>` runs the public Cloud-OpsBench cases (docs/evaluation.md): each case imported',
    'as a scenario (its container logs and Kubernetes state as log streams), offline replaying its golden trajectory',
    '(expert evidence recall, PUBLISHED/FALLBACK, tokens), or --live against your model (component, fault and joint',
    'accuracy as the benchmark scores them); `eval compare` compares two of its --json reports too.',
  ],
  options: [
    {
      name: 'scenarios',
      type: 'string',
      value: '<dir>',
      description: 'a folder of scenario folders',
      default: 'eval/scenarios',
    },
    { name: 'only', type: 'string', value: '<id,…>', description: 'run only these scenarios' },
    { name: 'live', type: 'boolean', description: 'use the configured model instead of the scripted replays' },
    {
      name: 'concurrency',
      type: 'string',
      value: '<k>',
      description: 'scenarios in parallel',
      default: '4 offline, 2 live',
      range: [1, 16],
    },
    { name: 'json', type: 'boolean', description: 'print the whole report as JSON on stdout (no table)' },
    { name: 'html', type: 'string', value: '<file>', description: 'also write a self-contained scorecard page' },
    {
      name: 'price',
      type: 'string',
      value: '<spec>',
      description: 'USD per million tokens: input=…,cached=…,output=… (or EVAL_PRICE)',
    },
    {
      name: 'mysql',
      type: 'string',
      value: '<url>',
      description: 'a MySQL URL that may create and drop databases (or EVAL_MYSQL_URL)',
    },
    { name: 'scenario-tokens', type: 'string', value: '<n>', description: 'live: each run’s token budget' },
    {
      name: 'total-tokens',
      type: 'string',
      value: '<n>',
      description: 'live: stop starting scenarios once n tokens are spent',
      default: '2000000',
    },
    {
      name: 'timeout',
      type: 'string',
      value: '<seconds>',
      description: 'each run’s deadline',
      default: '120 offline, 300 live',
    },
    {
      name: 'out',
      type: 'string',
      value: '<dir>',
      description: 'capture: the scenario folder to write',
      default: 'eval/scenarios/captured-<runId>',
    },
    { name: 'table', type: 'string', value: '<name>', description: 'capture: a deployed table (AWS credentials)' },
    {
      name: 'category',
      type: 'string',
      value: '<category>',
      description: 'capture: the scenario’s corpus category; cloud-opsbench: the fault categories to run',
      default: 'inferred from the run; cloud-opsbench: all',
    },
    {
      name: 'system',
      type: 'string',
      value: '<system,…>',
      description: 'cloud-opsbench: the systems to run (boutique, trainticket)',
      default: 'all',
    },
    {
      name: 'case',
      type: 'string',
      value: '<system/category/id,…>',
      description: 'cloud-opsbench: only these cases',
    },
    {
      name: 'limit',
      type: 'string',
      value: '<n>',
      description: 'cloud-opsbench: the first n cases the filters keep',
      range: [1, 100_000],
    },
    {
      name: 'time-zone',
      type: 'string',
      value: '<tz>',
      description: 'capture: the deployment’s DIAGNOSIS_TIMEZONE',
      default: 'DIAGNOSIS_TIMEZONE or Asia/Shanghai',
    },
  ],
  examples: [
    'npm run eval',
    'npx diagnosis eval --only timezone-callback-cert,red-herring-kafka --html .data/eval.html',
    'DIAGNOSIS_MODEL_API_KEY=sk-… npx diagnosis eval --live --concurrency 2 --total-tokens 1000000',
    'npx diagnosis eval capture 01KB3…   # after diagnosis feedback 01KB3… --verdict WRONG --root-cause "…"',
    'npx diagnosis eval --json > after.json && npx diagnosis eval compare before.json after.json',
    'npx diagnosis eval cloud-opsbench ~/Cloud-OpsBench --system trainticket --category runtime --json > replay.json',
  ],
  exitCodes: [
    [
      EXIT.OK,
      'every scenario scored as expected and every probe passed; capture: written; compare: no regression; cloud-opsbench: every case ran or was skipped with its reason',
    ],
    [
      EXIT.FAILED,
      'a scenario did not score as expected, or a probe failed; compare: a scenario or case regressed; cloud-opsbench: a case ended in an error',
    ],
    [EXIT.NOT_FOUND, 'capture: no run with that id in the table'],
    [EXIT.USAGE, 'a bad option value or a bad corpus (named in one line)'],
    [EXIT.UNAVAILABLE, 'capture: no DynamoDB (Java 17+ starts DynamoDB Local), or no such table'],
  ],
  settings: [
    'DIAGNOSIS_MODEL_PROFILE',
    'DIAGNOSIS_MODEL_API_KEY',
    'DIAGNOSIS_MODEL_BASE_URL',
    'DIAGNOSIS_MODEL_ID',
    'SEMANTIC_GUARD',
    'SEMANTIC_GUARD_MODEL_PROFILE',
    'SEMANTIC_GUARD_MODEL_ID',
    'EVAL_PRICE',
    'EVAL_MYSQL_URL',
    'DIAGNOSIS_TIMEZONE',
    'MYSQL_CATALOG_PATH',
    ...STORE_SETTINGS,
  ],
  async run({ values, positionals }, io) {
    const [action, ...rest] = positionals;
    if (action === 'capture') return capture(rest, values, io);
    if (action === 'compare') return compare(rest, values, io);
    if (action === 'cloud-opsbench') return cloudOpsbench(rest, values, io);
    if (action !== undefined) {
      throw usageError(
        `unknown eval action '${printable(action)}' (capture <runId>, compare <a.json> <b.json>, cloud-opsbench <dir>)`,
      );
    }
    const captureOnly = CAPTURE_OPTIONS.find((name) => values[name] !== undefined);
    if (captureOnly !== undefined) throw usageError(`--${captureOnly} is an option of eval capture`);
    const opsbenchOnly = OPSBENCH_OPTIONS.find((name) => values[name] !== undefined);
    if (opsbenchOnly !== undefined) throw usageError(`--${opsbenchOnly} is an option of eval cloud-opsbench`);
    await refuseInvalidLiveSettings(values, io);
    const { evalMain } = await import('@diagnosis/eval');
    const code = await evalMain(optionArgs(values), {
      stdout: io.stdout,
      stderr: io.stderr,
      interactive: io.stderrIsTTY,
      env: io.env,
      name: 'diagnosis eval',
    });
    // NOTE: the eval runner's own codes (packages/eval: 0 as expected, 64 bad options or corpus, else 1) as the bin's.
    return code === EXIT.OK ? EXIT.OK : code === EXIT.USAGE ? EXIT.USAGE : EXIT.FAILED;
  },
};

/**
 * `--live` runs every scenario against the configured model: its settings are checked as `diagnose` checks them,
 * before any scenario starts, so a key copied with a `…` (or any invalid setting) is one refusal, exit 78, naming the
 * key and its form — not every scenario ending ERROR. Without a key the eval runner says what --live needs.
 */
async function refuseInvalidLiveSettings(values: ParsedArgs['values'], io: CliIo): Promise<void> {
  if (values.live !== true || (io.env.DIAGNOSIS_MODEL_API_KEY ?? '') === '') return;
  const { checkLocalSettings } = await import('../local/local-settings.ts');
  checkLocalSettings(io.env);
}

/** The parsed options as the eval package's own parsers take them (`--name value`, `--flag`). */
function optionArgs(values: ParsedArgs['values']): string[] {
  const argv: string[] = [];
  for (const [name, value] of Object.entries(values)) {
    if (value === true) argv.push(`--${name}`);
    else if (typeof value === 'string') argv.push(`--${name}`, value);
  }
  return argv;
}

async function cloudOpsbench(args: string[], values: ParsedArgs['values'], io: CliIo): Promise<number> {
  const [dataset, extra] = args;
  if (dataset === undefined) throw usageError('no dataset folder: diagnosis eval cloud-opsbench <dataset-dir>');
  if (extra !== undefined) throw usageError(`one dataset folder only, not also '${printable(extra)}'`);
  const refused = NOT_OPSBENCH_OPTIONS.find((name) => values[name] !== undefined);
  if (refused !== undefined) throw usageError(`--${refused} is not an option of eval cloud-opsbench`);
  await refuseInvalidLiveSettings(values, io);
  const { opsbenchMain } = await import('@diagnosis/eval');
  const code = await opsbenchMain([dataset, ...optionArgs(values)], {
    stdout: io.stdout,
    stderr: io.stderr,
    interactive: io.stderrIsTTY,
    env: io.env,
    name: 'diagnosis eval',
  });
  return code === EXIT.OK ? EXIT.OK : code === EXIT.USAGE ? EXIT.USAGE : EXIT.FAILED;
}

async function capture(args: string[], values: ParsedArgs['values'], io: CliIo): Promise<number> {
  const [runId, extra] = args;
  if (runId === undefined) throw usageError('no run id: diagnosis eval capture <runId>');
  if (extra !== undefined) throw usageError(`one run id only, not also '${printable(extra)}'`);
  const { captureRun } = await import('@diagnosis/eval');
  const table = values.table === undefined ? undefined : String(values.table);
  if (table !== undefined && !/^[A-Za-z0-9_.-]{3,255}$/.test(table)) throw usageError('--table is not a table name');
  const common = {
    runId,
    out: values.out === undefined ? undefined : String(values.out),
    category: values.category === undefined ? undefined : String(values.category),
    timeZone:
      values['time-zone'] === undefined ? (io.env.DIAGNOSIS_TIMEZONE ?? undefined) : String(values['time-zone']),
    // NOTE: the deployment's own catalog, as its stage sets MYSQL_CATALOG_PATH: the entries the run used are captured.
    catalogPath: io.env.MYSQL_CATALOG_PATH || undefined,
  };
  let outcome: Awaited<ReturnType<typeof captureRun>>;
  if (table !== undefined) {
    // NOTE: a deployed table, with the default AWS credentials and region; capture sends Get and Query only.
    const { DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
    const { dynamoRequestHandler } = await import('@diagnosis/core/store');
    const client = new DynamoDBClient({ maxAttempts: 3, requestHandler: dynamoRequestHandler(undefined) });
    try {
      outcome = await captureRun({ ...common, client, tableName: table, sourceName: `table ${table}` });
    } finally {
      client.destroy();
    }
  } else {
    const { startLocalRuntime } = await import('../local/local-runtime.ts');
    const runtime = await startLocalRuntime(io.env);
    try {
      outcome = await captureRun({
        ...common,
        client: runtime.client,
        tableName: runtime.tableName,
        sourceName: `table ${runtime.tableName}`,
      });
    } finally {
      await runtime.stop();
    }
  }
  if (!outcome.ok) throw new CliError(outcome.exit === 'NOT_FOUND' ? EXIT.NOT_FOUND : EXIT.USAGE, outcome.message);
  const sizes = Object.entries(outcome.sizes).map(([name, bytes]) => `${name} ${bytes.toLocaleString('en')} B`);
  io.stdout(`scenario ${outcome.id} written to ${outcome.dir}: ${sizes.join(', ')}\n`);
  if (!outcome.scripted) io.stdout('no model rounds in the audit: the scenario replays with --live only\n');
  for (const line of outcome.missing) io.stdout(`  missing: ${line}\n`);
  return EXIT.OK;
}

async function compare(args: string[], values: ParsedArgs['values'], io: CliIo): Promise<number> {
  if (args.length !== 2) throw usageError('two scorecards: diagnosis eval compare <a.json> <b.json>');
  const {
    compareOpsbenchReports,
    compareReports,
    isOpsbenchReport,
    parseComparableReport,
    parseOpsbenchReport,
    parseScorecardText,
    renderComparison,
    renderOpsbenchComparison,
  } = await import('@diagnosis/eval');
  const files = args.map((path) => {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      throw usageError(`${printable(path)} cannot be read`);
    }
    const value = parseScorecardText(text);
    if (value === null) {
      throw usageError(`${printable(path)} is not a JSON scorecard (write one with: npx diagnosis eval --json > file)`);
    }
    return { path, value };
  });
  if (files.some((file) => isOpsbenchReport(file.value))) {
    const reports = files.map(({ path, value }) => {
      const parsed = parseOpsbenchReport(value);
      if (!parsed.ok)
        throw usageError(`${printable(path)} is not a cloud-opsbench report: ${parsed.problems.join('; ')}`);
      return parsed.report;
    });
    const comparison = compareOpsbenchReports(reports[0] as never, reports[1] as never);
    io.stdout(values.json === true ? `${JSON.stringify(comparison, null, 2)}\n` : renderOpsbenchComparison(comparison));
    return comparison.regressions > 0 ? EXIT.FAILED : EXIT.OK;
  }
  const reports = files.map(({ path, value }) => {
    const parsed = parseComparableReport(value);
    if (!parsed.ok) throw usageError(`${printable(path)} is not a scorecard: ${parsed.problems.join('; ')}`);
    return parsed.report;
  });
  const comparison = compareReports(reports[0] as never, reports[1] as never);
  io.stdout(values.json === true ? `${JSON.stringify(comparison, null, 2)}\n` : renderComparison(comparison));
  return comparison.regressions > 0 ? EXIT.FAILED : EXIT.OK;
}
