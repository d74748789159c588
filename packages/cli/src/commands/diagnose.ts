import { isEnterpriseId, isSessionId } from '@diagnosis/core/ids';
import {
  CliError,
  type Command,
  EXIT,
  type OptionSpec,
  printable,
  usageError,
  wholeNumberOption,
} from '../command-line.ts';
import { DIAGNOSIS_SETTINGS, MASKING_SETTINGS, STORE_SETTINGS } from '../setting-keys.ts';

const TIMEOUT: OptionSpec = {
  name: 'timeout',
  type: 'string',
  value: '<seconds>',
  description: "the invocation's time",
  default: '300',
  range: [1, 900],
};
const CONCURRENCY: OptionSpec = {
  name: 'concurrency',
  type: 'string',
  value: '<n>',
  description: "batch: the Map's MaxConcurrency",
  default: '4',
  range: [1, 1_000],
};
const CAP: OptionSpec = {
  name: 'cap',
  type: 'string',
  value: '<n>',
  description: 'batch: TENANT_MAX_CONCURRENT_RUNS',
  range: [1, 256],
};
const MODEL_LATENCY: OptionSpec = {
  name: 'model-latency',
  type: 'string',
  value: '<ms>',
  description: 'batch, scripted model: delay per round',
  default: '0',
  range: [0, 600_000],
};

/** `diagnosis diagnose`: one diagnosis with a real model, or a batch through the DiagnosisBatch definition. */
export const diagnoseCommand: Command = {
  name: 'diagnose',
  summary: 'diagnose an incident with a real model (or a batch of requests)',
  synopsis: '"<query>" [options]  |  --batch <file.jsonl> [batch options]',
  description: [
    'Runs one diagnosis on this machine through the real Diagnose function: the model of DIAGNOSIS_MODEL_BASE_URL',
    '(DeepSeek by default, key in DIAGNOSIS_MODEL_API_KEY), DynamoDB Local under .data/ (or DYNAMODB_ENDPOINT), the',
    "example world's runbooks and logs, MySQL from MYSQL_URL. Shows each round and tool call live on stderr and the",
    'report on stdout. With --batch, runs a JSON Lines file of requests through the DiagnosisBatch state machine.',
  ],
  arguments: [['<query>', 'the question, in any language (at most 4,096 UTF-8 bytes)']],
  options: [
    {
      name: 'enterprise',
      type: 'string',
      value: '<id>',
      description: 'the tenant: upper-case letters, digits, _ and -',
      default: 'E1001',
    },
    { name: 'session', type: 'string', value: '<id>', description: 'the session', default: 'local-<date>' },
    {
      name: 'continue',
      type: 'boolean',
      description: "continue the session: its last published diagnosis is the model's previous turn",
    },
    TIMEOUT,
    {
      name: 'json',
      type: 'boolean',
      description: 'print only the result object, with the evidence behind each citation',
    },
    {
      name: 'batch',
      type: 'string',
      value: '<file>',
      description: 'run a batch: one { sessionId, enterpriseId, query } per line',
    },
    CONCURRENCY,
    CAP,
    {
      name: 'scripted-model',
      type: 'boolean',
      description: "batch: answer every run with the demo's scripted conversation (no key)",
    },
    MODEL_LATENCY,
  ],
  examples: [
    'export DIAGNOSIS_MODEL_API_KEY=sk-…',
    'diagnosis diagnose "E1001 的订单从 14:05 开始大量失败，为什么？" --enterprise E1001',
    'diagnosis diagnose "回滚之后还需要做什么？" --session ops-42 --continue',
    'diagnosis diagnose "…" --json > result.json',
    'diagnosis diagnose --batch examples/batch/e1001-requests.jsonl --concurrency 4 --scripted-model',
  ],
  exitCodes: [
    [EXIT.OK, 'the diagnosis was published (a batch: every run ended)'],
    [EXIT.FAILED, 'the run FAILED (a batch: a run did not end)'],
    [EXIT.FALLBACK, 'the run ended with a FALLBACK report'],
    [EXIT.USAGE, 'bad usage or input: the query too large, an invalid id, a bad batch file'],
    [
      EXIT.UNAVAILABLE,
      'no model key, or no DynamoDB (Java 17+ starts DynamoDB Local), or no such table at DYNAMODB_ENDPOINT',
    ],
    [EXIT.INTERRUPTED, 'Ctrl-C: the run was cancelled (it ends CANCELLED)'],
  ],
  settings: [...DIAGNOSIS_SETTINGS, ...MASKING_SETTINGS, ...STORE_SETTINGS],
  async run({ values, positionals }, io) {
    const timeoutSeconds = wholeNumberOption(TIMEOUT, values.timeout) as number;
    if (values.batch !== undefined) {
      if (positionals.length > 0) throw usageError('a batch takes no query: the queries are in the file');
      const cap = wholeNumberOption(CAP, values.cap);
      const { runBatchCommand } = await import('../batch/diagnose-batch.ts');
      return runBatchCommand(
        {
          path: String(values.batch),
          concurrency: wholeNumberOption(CONCURRENCY, values.concurrency) as number,
          ...(cap === undefined ? {} : { cap }),
          scriptedModel: values['scripted-model'] === true,
          modelLatencyMs: wholeNumberOption(MODEL_LATENCY, values['model-latency']) as number,
          timeoutSeconds,
          json: values.json === true,
        },
        io,
      );
    }
    for (const batchOnly of ['concurrency', 'cap', 'scripted-model', 'model-latency']) {
      if (values[batchOnly] !== undefined) throw usageError(`--${batchOnly} is an option of --batch`);
    }
    const query = positionals.join(' ');
    if (query.trim() === '') throw usageError('no query: diagnosis diagnose "<query>"');
    const enterpriseId = String(values.enterprise ?? 'E1001');
    if (!isEnterpriseId(enterpriseId)) {
      throw usageError(
        `bad enterprise id '${printable(enterpriseId)}': upper-case letters, digits, _ and - (e.g. E1001)`,
      );
    }
    const sessionId = String(values.session ?? `local-${new Date().toISOString().slice(0, 10)}`);
    if (!isSessionId(sessionId)) {
      throw usageError(`bad session id '${printable(sessionId)}': letters, digits and _ . : - (at most 128)`);
    }
    if ((io.env.DIAGNOSIS_MODEL_API_KEY ?? '') === '') {
      throw new CliError(
        EXIT.UNAVAILABLE,
        'no model key: set DIAGNOSIS_MODEL_API_KEY (DeepSeek by default; any OpenAI-compatible server with DIAGNOSIS_MODEL_BASE_URL and DIAGNOSIS_MODEL_ID), or try `npm run demo`',
      );
    }
    const { runLocalDiagnosis } = await import('../local/run-local-diagnosis.ts');
    return runLocalDiagnosis(
      {
        query,
        enterpriseId,
        sessionId,
        continueSession: values.continue === true,
        timeoutSeconds,
        json: values.json === true,
      },
      io,
    );
  },
};
