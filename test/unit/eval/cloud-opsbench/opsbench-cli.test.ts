import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { opsbenchMain, renderOpsbenchTable } from '../../../../packages/eval/src/cloud-opsbench/opsbench-cli.ts';
import { buildOpsbenchReport } from '../../../../packages/eval/src/cloud-opsbench/opsbench-report.ts';
import type { OpsbenchCase } from '../../../../packages/eval/src/cloud-opsbench/run-cloud-opsbench.ts';

const DATASET = resolve(import.meta.dirname, '../../../fixtures/cloud-opsbench');

async function run(argv: string[], env: Record<string, string> = {}) {
  let stdout = '';
  let stderr = '';
  const code = await opsbenchMain(argv, {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    interactive: false,
    env,
    name: 'diagnosis eval',
  });
  return { code, stdout, stderr };
}

describe('opsbenchMain', () => {
  it.each([
    [[], 'no dataset folder'],
    [[DATASET, 'another'], 'one dataset folder only'],
    [[DATASET, '--bogus'], 'bad option'],
    [[DATASET, '--limit', 'ten'], '--limit must be a whole number from 1 to 100000'],
    [[DATASET, '--concurrency', '17'], '--concurrency must be a whole number from 1 to 16'],
    [[DATASET, '--system', 'a b'], '--system takes a comma-separated list'],
    [[DATASET, '--case', 'trainticket/1'], '--case takes a comma-separated list'],
    [[DATASET, '--price', 'cheap'], 'EVAL_PRICE / --price must look like'],
    [[DATASET, '--live'], '--live needs DIAGNOSIS_MODEL_API_KEY'],
  ])('refuses %j with exit 64 and one line, before reading the dataset', async (argv, message) => {
    const result = await run(argv);
    expect(result.code).toBe(64);
    expect(result.stderr).toContain(message);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stdout).toBe('');
  });

  it('prices a live run at the model profile’s list price, and refuses a profile without one unless --price is set', async () => {
    const key = { DIAGNOSIS_MODEL_API_KEY: 'sk-x' };
    const unknown = await run([DATASET, '--live'], { ...key, DIAGNOSIS_MODEL_PROFILE: 'mystery' });
    expect(unknown.stderr).toContain('DIAGNOSIS_MODEL_PROFILE must be one of');
    const unpriced = await run([DATASET, '--live'], { ...key, DIAGNOSIS_MODEL_PROFILE: 'qwen' });
    expect(unpriced.code).toBe(64);
    expect(unpriced.stderr).toContain('the qwen profile has no list price: set --price');
  });

  it('refuses a folder that is not the dataset', async () => {
    const result = await run([resolve(DATASET, 'benchmark')]);
    expect(result.code).toBe(64);
    expect(result.stderr).toContain('has no benchmark/ folder');
  });
});

describe('renderOpsbenchTable', () => {
  const entry = (overrides: Partial<OpsbenchCase>): OpsbenchCase => ({
    case: 'trainticket/runtime/1',
    system: 'trainticket',
    category: 'runtime',
    status: 'REPLAYED',
    reason: null,
    truth: null,
    import: { ms: 1, streams: 1, records: 1, kubernetesRecords: 0, bytes: 1, untimedEvents: 0, repeatedPrevious: 0 },
    replay: null,
    release: { status: 'PUBLISHED', cause: null },
    evidenceRecall: {
      messages: { expert: 4, found: 3 },
      signatures: { expert: 2, found: 2 },
      lost: { parser: 0, budget: 0, window: 0, level: 1, limit: 0, cut: 0, masking: 0 },
      messageRecall: 0.75,
      signatureRecall: 1,
    },
    adapterMs: 1,
    tokens: { input: 1_000, cached: 0, output: 234, total: 1_234, measured: true },
    costUsd: 0.0012,
    live: null,
    runId: 'r',
    notes: [],
    ...overrides,
  });

  it('prints a row per system and category, the total, and the skip reasons and lost lines', () => {
    const report = buildOpsbenchReport({
      mode: 'offline',
      startedAt: '2031-01-01T00:00:00.000Z',
      wallMs: 1,
      concurrency: 1,
      price: { input: 0.3, cachedInput: 0.006, output: 1.2 },
      priceSource: 'profile deepseek',
      filter: { systems: null, categories: null, cases: null, limit: null },
      cases: [
        entry({}),
        entry({
          case: 'boutique/startup/3',
          system: 'boutique',
          category: 'startup',
          status: 'SKIPPED',
          reason: 'LOGS_ABSENT: raw_data/logs.json is not in the dataset',
          import: null,
          release: null,
          evidenceRecall: null,
          tokens: null,
          costUsd: 0,
        }),
      ],
    });
    expect(renderOpsbenchTable(report).split('\n')).toEqual([
      'system/category      cases  imported  skipped  replayed  published  fallback  signatures  messages  tokens/case  cost',
      'trainticket/runtime  1      1         0        1         1          0         100.0%      75.0%     1,234        $0.0012',
      'boutique/startup     1      0         1        0         0          0         —           —         —            $0.0000',
      'total                2      1         1        1         1          0         100.0%      75.0%     1,234        $0.0012',
      '',
      'skipped: LOGS_ABSENT 1',
      'expert messages lost: parser 0, budget 0, window 0, level 1, limit 0, cut 0, masking 0',
      '',
    ]);
  });
});
