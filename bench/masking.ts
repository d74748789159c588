/**
 * Masking at the tool boundary (issue 22): what masking one observation costs, per KiB of text masked.
 *
 * For each input kind, one masking session per run (as a run has), `maskText` on the same text many times; the figure
 * is the median and p95 time of one call divided by the text's size in KiB. Kinds: log lines dense with identifiers
 * and secrets (synthetic, like the example world's), a Chinese runbook passage with none, and hostile text built to
 * defeat naive patterns. Then a whole `query_logs` result of 20 lines through the projection with and without the
 * masker: the cost the tool boundary adds to one observation (masking happens once per observation, never per round).
 *
 * Run: `node bench/masking.ts` (also part of `npm run bench`). BENCH_MASKING_ITERATIONS sets the calls per kind.
 */

import { projectEvidence } from '../packages/core/src/tools/evidence-projection.ts';
import { loadCustomRules } from '../packages/core/src/tools/masking/custom-patterns.ts';
import { createMaskingSession } from '../packages/core/src/tools/masking/masking-session.ts';
import { okObservation } from '../packages/core/src/tools/observation.ts';

const ITERATIONS = Number(process.env.BENCH_MASKING_ITERATIONS ?? 2_000);
const SECRET = 'bench-masking-secret-of-at-least-32-characters';

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};

const denseLine = (index: number) =>
  `2026-11-30T14:0${index % 10}:00+08:00 ERROR pay failed order=E1001-00${index} user=1391234${String(5000 + index)} ` +
  `email=li.${index}@example.cn ip=203.0.113.${index % 250} card=4111111111111111 auth=Bearer abcdefghijklmnop${index}q ` +
  `arn:aws:iam::123456789012:role/checkout instance i-0abc123def456789${index % 10} customer CUST-${String(100000 + index)}`;
const KINDS: Record<string, string> = {
  'log lines dense with identifiers and secrets': Array.from({ length: 12 }, (_, index) => denseLine(index)).join('\n'),
  'Chinese runbook text, no identifiers':
    '当 payment-gateway 出现连接池耗尽时，订单服务会报 upstream timeout，先查看 WARN 日志中的连接池统计。'.repeat(40),
  'hostile: 16 KiB of almost-e-mail addresses': 'a.b.c.d.e.f.g.h@'.repeat(1_024),
  'hostile: 16 KiB of digits and separators': '1 2-3 4-5 6-7 8 '.repeat(1_024),
  // Issue 32, item 8: the encodings the normalised view undoes, at the masking bound.
  'hostile: 16 KiB of full-width digits': '１３９１２３４５６７８ '.repeat(1_365),
  'hostile: 16 KiB of %40 and zero-width splits': 'a%40b.c 1\u200b3\u200d9 '.repeat(1_024),
  'hostile: 16 KiB of marker look-alikes': '[MASKED:139123] <x_1:aaaaa> '.repeat(585),
  // A text over the bound (16 KiB): cut first (boundText), at a break outside every value, then masked.
  'over the bound: 24 KiB of dense log lines, cut': Array.from({ length: 80 }, (_, index) => denseLine(index)).join(
    '\n',
  ),
};

function measure(label: string, run: () => unknown, kib: number) {
  for (let index = 0; index < 50; index += 1) run();
  const times: number[] = [];
  for (let index = 0; index < ITERATIONS; index += 1) {
    const started = performance.now();
    run();
    times.push(performance.now() - started);
  }
  const median = percentile(times, 50);
  const p95 = percentile(times, 95);
  console.log(
    `| ${label} | ${kib.toFixed(1)} | ${((median * 1_000) / kib).toFixed(1)} | ${((p95 * 1_000) / kib).toFixed(1)} | ${(median * 1_000).toFixed(0)} |`,
  );
}

export async function benchMasking(): Promise<void> {
  console.log('\nmasking (issue 22): µs per KiB masked, median and p95 of one call');
  console.log('| input | KiB | median µs/KiB | p95 µs/KiB | median µs/call |');
  console.log('| --- | --- | --- | --- | --- |');
  const rules = await loadCustomRules([{ kind: 'customer_id', pattern: 'CUST-[0-9]{6}' }]);
  for (const [label, text] of Object.entries(KINDS)) {
    const session = createMaskingSession({ mode: 'identifiers', secret: SECRET, rules }, `bench-${label}`);
    measure(label, () => session.maskText(text), Buffer.byteLength(text) / 1024);
  }
  const data = {
    matched: 20,
    lines: Array.from({ length: 20 }, (_, index) => ({
      timestamp: `2026-11-30T14:0${index % 10}:00+08:00`,
      level: 'ERROR',
      service: 'order-service',
      message: denseLine(index).slice(0, 400),
      trace_id: `77468276a5cd46${index}c`,
    })),
  };
  const kib = Buffer.byteLength(JSON.stringify(data)) / 1024;
  const session = createMaskingSession({ mode: 'identifiers', secret: SECRET, rules }, 'bench-observation');
  const masker = {
    text: session.maskText,
    cell: (value: string | number, column: string) => session.maskValue(value, column) as string | number,
  };
  const project = (withMasking: boolean) => {
    const projection = projectEvidence('query_logs', data, withMasking ? masker : undefined);
    if (!projection.ok) throw new Error('projection failed');
    return okObservation('call-1', projection.data);
  };
  measure('one query_logs observation (20 lines), projection without masking', () => project(false), kib);
  measure('the same observation, projection with masking', () => project(true), kib);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(`node ${process.version} on ${process.platform}/${process.arch}`);
  await benchMasking();
}
