/**
 * `npm run diagnose -- "<query>" [--enterprise E1001] [--session S] [--continue] [--timeout 300] [--json]`
 * Diagnoses with a real model through the real handler, on this machine's embedded defaults.
 * `npm run diagnose -- --batch requests.jsonl --concurrency K [--cap N] [--scripted-model [--model-latency MS]]`
 * runs a batch through DiagnosisBatch's definition (see `diagnose-batch.ts`).
 */
import { parseArgs } from 'node:util';
import { runBatchCommand } from './diagnose-batch.ts';
import { runLocalDiagnosis } from './run-local-diagnosis.ts';

const USAGE = [
  'usage: npm run diagnose -- "<query>" [--enterprise E1001] [--session S] [--continue] [--timeout 300] [--json]',
  '       npm run diagnose -- --batch requests.jsonl --concurrency K [--cap N] [--scripted-model [--model-latency MS]]',
].join('\n');

async function main(): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse();
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    return 1;
  }
  const { values, positionals } = parsed;
  if (values.batch !== undefined) return batch(values, positionals);
  const query = positionals.join(' ');
  const timeout = Number(values.timeout);
  if (query.trim() === '' || !Number.isFinite(timeout) || timeout < 1 || timeout > 900) {
    process.stderr.write(`${USAGE}\n`);
    return 1;
  }
  if ((process.env.DIAGNOSIS_MODEL_API_KEY ?? '') === '') {
    process.stderr.write(
      [
        'No model key: set DIAGNOSIS_MODEL_API_KEY (DeepSeek by default; any OpenAI-compatible server works with',
        'DIAGNOSIS_MODEL_BASE_URL and DIAGNOSIS_MODEL_ID, e.g. a local Ollama at http://127.0.0.1:11434/v1).',
        'To see the whole pipeline without a key, run: npm run demo',
        '',
      ].join('\n'),
    );
    return 1;
  }
  return runLocalDiagnosis({
    query,
    enterpriseId: values.enterprise,
    sessionId: values.session ?? `local-${new Date().toISOString().slice(0, 10)}`,
    continueSession: values.continue,
    timeoutSeconds: timeout,
    json: values.json,
  });
}

function parse() {
  return parseArgs({
    allowPositionals: true,
    options: {
      enterprise: { type: 'string', default: 'E1001' },
      session: { type: 'string' },
      continue: { type: 'boolean', default: false },
      timeout: { type: 'string', default: '300' },
      json: { type: 'boolean', default: false },
      batch: { type: 'string' },
      concurrency: { type: 'string', default: '4' },
      cap: { type: 'string' },
      'scripted-model': { type: 'boolean', default: false },
      'model-latency': { type: 'string', default: '0' },
    },
  });
}

async function batch(values: ReturnType<typeof parse>['values'], positionals: string[]): Promise<number> {
  const concurrency = Number(values.concurrency);
  const cap = values.cap === undefined ? undefined : Number(values.cap);
  const latency = Number(values['model-latency']);
  const timeout = Number(values.timeout);
  const whole = (value: number, max: number) => Number.isSafeInteger(value) && value >= 1 && value <= max;
  if (
    positionals.length > 0 ||
    !whole(concurrency, 1_000) ||
    (cap !== undefined && !whole(cap, 256)) ||
    !Number.isSafeInteger(latency) ||
    latency < 0 ||
    !whole(timeout, 900)
  ) {
    process.stderr.write(`${USAGE}\n`);
    return 1;
  }
  return runBatchCommand({
    path: values.batch ?? '',
    concurrency,
    ...(cap === undefined ? {} : { cap }),
    scriptedModel: values['scripted-model'],
    modelLatencyMs: latency,
    timeoutSeconds: timeout,
    json: values.json,
  });
}

process.exit(await main());
