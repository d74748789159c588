import { type Command, EXIT } from '../command-line.ts';

/**
 * `diagnosis eval`: the scorecard of a scenario corpus (packages/eval). This entry gives the bin its help and strict
 * option parsing; the options are handed on to the eval runner as they were given.
 */
export const evalCommand: Command = {
  name: 'eval',
  summary: 'score a corpus of incident scenarios (offline replays, or --live against your model)',
  synopsis: '[--scenarios <dir>] [--only <id,…>] [--live] [--concurrency <k>] [--json] [--html <file>]',
  description: [
    'Offline (the default): every probe calls the real adapters on the scenario’s world with its tenant, and every',
    'scenario with a scripted.json replays its hand-written conversation through the real provider, Diagnose',
    'function, guards and release (DynamoDB Local, MariaDB for worlds with MySQL). --live runs every scenario',
    'against the model of DIAGNOSIS_MODEL_BASE_URL / DIAGNOSIS_MODEL_ID / DIAGNOSIS_MODEL_API_KEY instead.',
    'Prints a table (a progress line on stderr while it runs); CONFIDENTLY_WRONG is the worst verdict.',
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
      description: 'scenarios in parallel, 1–16',
      default: '4 offline, 2 live',
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
  ],
  examples: [
    'npm run eval',
    'npx diagnosis eval --only timezone-callback-cert,red-herring-kafka --html .data/eval.html',
    'DIAGNOSIS_MODEL_API_KEY=sk-… npx diagnosis eval --live --concurrency 2 --total-tokens 1000000',
  ],
  exitCodes: [
    [1, 'a scenario did not score as expected, or a probe failed'],
    [EXIT.USAGE, 'a bad option value or a bad corpus (named in one line)'],
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
    'DYNAMODB_ENDPOINT',
  ],
  async run({ values }, io) {
    const argv: string[] = [];
    for (const [name, value] of Object.entries(values)) {
      if (value === true) argv.push(`--${name}`);
      else if (typeof value === 'string') argv.push(`--${name}`, value);
    }
    const { evalMain } = await import('@diagnosis/eval');
    return evalMain(argv, {
      stdout: io.stdout,
      stderr: io.stderr,
      interactive: io.stderrIsTTY,
      env: io.env,
      name: 'diagnosis eval',
    });
  },
};
