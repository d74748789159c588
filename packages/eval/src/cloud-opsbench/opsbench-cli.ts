/**
 * `diagnosis eval cloud-opsbench <dataset-dir> [--system S,…] [--category C,…] [--case K,…] [--limit N] [--live]
 * [--json] …`: the public Cloud-OpsBench dataset through the eval (run-cloud-opsbench.ts), offline (the replay of the
 * golden trajectories, the default) or live (your model). Prints a table per system and category, or the whole report
 * as JSON. Exit 0 when every case imported and ran or was skipped with its reason; 1 when a case ended in an error;
 * 64 for bad options or a folder that is not the dataset.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { MODEL_PROFILE_NAMES, MODEL_PROFILES, type ModelProfileName } from '@diagnosis/core/config';
import type { EvalIo } from '../cli.ts';
import { type Price, PriceError, parsePrice } from '../price.ts';
import { DatasetError } from './opsbench-dataset.ts';
import { buildOpsbenchReport, type OpsbenchReport, type OpsbenchTotals } from './opsbench-report.ts';
import { runCloudOpsbench } from './run-cloud-opsbench.ts';

const EXIT_USAGE = 64;

/** What `--live` reads of the environment: the model, the judge, the run's limits. */
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
] as const;

class UsageError extends Error {}

const list = (value: string | undefined, name: string, pattern: RegExp) => {
  if (value === undefined) return undefined;
  const items = value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  const bad = items.find((item) => !pattern.test(item));
  if (items.length === 0 || bad !== undefined) throw new UsageError(`${name} takes a comma-separated list`);
  return items;
};

function whole(value: string | undefined, name: string, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,9}$/.test(value) || Number(value) < 1 || Number(value) > max) {
    throw new UsageError(`${name} must be a whole number from 1 to ${max}`);
  }
  return Number(value);
}

/**
 * The price of the run's tokens: `--price` / EVAL_PRICE when given, else the model profile's list price (live: the
 * one DIAGNOSIS_MODEL_PROFILE names, DeepSeek's by default; offline: DeepSeek's, whose wire the replay speaks).
 */
function priceOf(given: string | undefined, profileName: string | undefined): { price: Price; source: string } {
  if (given !== undefined && given.trim() !== '') return { price: parsePrice(given), source: '--price' };
  const name = profileName === undefined || profileName === '' ? 'deepseek' : profileName;
  if (!MODEL_PROFILE_NAMES.includes(name as ModelProfileName)) {
    throw new UsageError(`DIAGNOSIS_MODEL_PROFILE must be one of ${MODEL_PROFILE_NAMES.join(', ')}`);
  }
  const price = MODEL_PROFILES[name as ModelProfileName].price;
  if (price === null) throw new UsageError(`the ${name} profile has no list price: set --price (or EVAL_PRICE)`);
  return { price, source: `profile ${name}` };
}

/** Runs the command; the bin's `diagnosis eval cloud-opsbench` hands its arguments on as given. */
export async function opsbenchMain(argv: readonly string[], io: EvalIo): Promise<number> {
  const name = `${io.name ?? 'eval'} cloud-opsbench`;
  let parsed: ReturnType<typeof parse>;
  const parse = (args: readonly string[]) =>
    parseArgs({
      args: [...args],
      strict: true,
      allowPositionals: true,
      options: {
        system: { type: 'string' },
        category: { type: 'string' },
        case: { type: 'string' },
        limit: { type: 'string' },
        live: { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        concurrency: { type: 'string' },
        price: { type: 'string' },
        'scenario-tokens': { type: 'string' },
        'total-tokens': { type: 'string' },
        timeout: { type: 'string' },
      },
    });
  try {
    parsed = parse(argv);
  } catch {
    io.stderr(`${name}: bad option; see diagnosis eval --help\n`);
    return EXIT_USAGE;
  }
  const { values, positionals } = parsed;
  const live = values.live;
  let options: Parameters<typeof runCloudOpsbench>[0];
  let priceSource: string;
  try {
    const [dataset, extra] = positionals;
    if (dataset === undefined) throw new UsageError('no dataset folder: diagnosis eval cloud-opsbench <dataset-dir>');
    if (extra !== undefined) throw new UsageError('one dataset folder only');
    const liveSettings: Record<string, string> = {};
    if (live) {
      for (const key of LIVE_KEYS) {
        const value = io.env[key];
        if (value !== undefined && value !== '') liveSettings[key] = value;
      }
      if (liveSettings.DIAGNOSIS_MODEL_API_KEY === undefined) {
        throw new UsageError(
          '--live needs DIAGNOSIS_MODEL_API_KEY (and DIAGNOSIS_MODEL_BASE_URL / _ID for your model)',
        );
      }
      const tokens = whole(values['scenario-tokens'], '--scenario-tokens', 10_000_000);
      if (tokens !== undefined) liveSettings.DIAGNOSIS_MAX_TOTAL_TOKENS = String(tokens);
    }
    const priced = priceOf(values.price ?? io.env.EVAL_PRICE, live ? io.env.DIAGNOSIS_MODEL_PROFILE : undefined);
    priceSource = priced.source;
    options = {
      datasetDir: resolve(dataset),
      filter: {
        systems: list(values.system, '--system', /^[A-Za-z0-9_-]{1,64}$/),
        categories: list(values.category, '--category', /^[A-Za-z0-9_-]{1,64}$/),
        cases: list(values.case, '--case', /^[A-Za-z0-9_-]{1,64}\/[A-Za-z0-9_-]{1,64}\/[A-Za-z0-9_-]{1,64}$/),
        limit: whole(values.limit, '--limit', 100_000),
      },
      mode: live ? 'live' : 'offline',
      concurrency: whole(values.concurrency, '--concurrency', 16) ?? 2,
      price: priced.price,
      liveSettings,
      totalTokenCap: whole(values['total-tokens'], '--total-tokens', 1_000_000_000) ?? 2_000_000,
      runTimeoutMs: (whole(values.timeout, '--timeout', 900) ?? (live ? 300 : 120)) * 1_000,
      dynamoEndpoint: io.env.DYNAMODB_ENDPOINT,
      onCase: (entry, done, total) => {
        const outcome = entry.release === null ? entry.status : `${entry.status} ${entry.release.status}`;
        const reason = entry.reason === null ? '' : `  ${entry.reason}`;
        io.stderr(`[${String(done).padStart(String(total).length)}/${total}] ${entry.case} ${outcome}${reason}\n`);
      },
    };
  } catch (error) {
    if (error instanceof UsageError || error instanceof PriceError) {
      io.stderr(`${name}: ${error.message}\n`);
      return EXIT_USAGE;
    }
    throw error;
  }
  const startedAt = new Date().toISOString();
  const started = performance.now();
  let run: Awaited<ReturnType<typeof runCloudOpsbench>>;
  try {
    run = await runCloudOpsbench(options);
  } catch (error) {
    if (error instanceof DatasetError) {
      io.stderr(`${name}: ${error.message}\n`);
      return EXIT_USAGE;
    }
    throw error;
  }
  const report = buildOpsbenchReport({
    mode: options.mode,
    startedAt,
    wallMs: performance.now() - started,
    concurrency: options.concurrency,
    price: options.price,
    priceSource,
    filter: {
      systems: options.filter.systems === undefined ? null : [...options.filter.systems],
      categories: options.filter.categories === undefined ? null : [...options.filter.categories],
      cases: options.filter.cases === undefined ? null : [...options.filter.cases],
      limit: options.filter.limit ?? null,
    },
    cases: run.cases,
  });
  io.stdout(values.json ? `${JSON.stringify(report, null, 2)}\n` : renderOpsbenchTable(report));
  return report.totals.errors > 0 ? 1 : 0;
}

const percent = (value: number | null | undefined) => (value == null ? '—' : `${(value * 100).toFixed(1)}%`);
const whole0 = (value: number | null | undefined) => (value == null ? '—' : Math.round(value).toLocaleString('en-US'));

function row(label: string, totals: OpsbenchTotals, mode: 'offline' | 'live'): string[] {
  const common = [
    label,
    String(totals.cases),
    String(totals.imported),
    String(totals.skipped),
    String(mode === 'offline' ? totals.replayed : totals.ran),
    String(totals.published),
    String(totals.fallback),
  ];
  const recall = totals.evidence_recall;
  const specific =
    mode === 'offline'
      ? [percent(recall?.signatures.recall), percent(recall?.messages.recall)]
      : [percent(totals.accuracy?.component), percent(totals.accuracy?.fault), percent(totals.accuracy?.joint)];
  return [...common, ...specific, whole0(totals.tokens.per_case), `$${totals.cost_usd.toFixed(4)}`];
}

/** The report as a table: one row per system and category, then the total, the skip reasons and lost lines. */
export function renderOpsbenchTable(report: OpsbenchReport): string {
  const header = [
    'system/category',
    'cases',
    'imported',
    'skipped',
    report.mode === 'offline' ? 'replayed' : 'ran',
    'published',
    'fallback',
    ...(report.mode === 'offline' ? ['signatures', 'messages'] : ['component', 'fault', 'joint']),
    'tokens/case',
    'cost',
  ];
  const rows = [
    header,
    ...report.groups.map((group) => row(`${group.system}/${group.category}`, group, report.mode)),
    row('total', report.totals, report.mode),
  ];
  const widths = header.map((_, column) => Math.max(...rows.map((cells) => (cells[column] ?? '').length)));
  const lines = rows.map((cells) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd(),
  );
  const totals = report.totals;
  const reasons = Object.entries(totals.skip_reasons).map(([code, n]) => `${code} ${n}`);
  if (reasons.length > 0) lines.push('', `skipped: ${reasons.join(', ')}`);
  if (totals.not_replayed > 0)
    lines.push(`imported, not replayed (no golden trajectory or no step of ours): ${totals.not_replayed}`);
  const causes = Object.entries(totals.fallback_causes).map(([cause, n]) => `${cause} ${n}`);
  if (causes.length > 0) lines.push(`fallback: ${causes.join(', ')}`);
  const lost = totals.evidence_recall?.lost;
  if (lost !== undefined) {
    lines.push(
      `expert messages lost: ${Object.entries(lost)
        .map(([place, n]) => `${place} ${n}`)
        .join(', ')}`,
    );
  }
  if (totals.errors > 0) lines.push(`errors: ${totals.errors}`);
  return `${lines.join('\n')}\n`;
}
