/**
 * Knowledge at scale (issue #14): the local knowledge index on synthetic runbooks with a realistic vocabulary (Zipf over
 * the Han characters and ASCII words of examples/knowledge, bodies as long as the examples', seeded), at 1,000 and
 * 10,000 documents, plus the example world itself (its 10 runbooks, their titles as queries). Each candidate runs in
 * a fresh process (`--expose-gc`) so that its memory is its own:
 *
 * - `inverted index`: what ships (buildKnowledgeIndexFile → file → cold-start check → first lookup decodes);
 * - `minisearch`: the MiniSearch 7.2 index it replaced, same options (fields, stored fields, bigram tokenizer);
 * - `minisearch without stored fields`: the same without `storeFields` (metadata kept beside it, filtered by id).
 *
 * `node bench/knowledge-index.ts` (or `npm run bench`); `BENCH_KNOWLEDGE_SIZES=1000` for a quick run,
 * `BENCH_KNOWLEDGE_CANDIDATES='inverted index'` for one candidate.
 * NOTE: over 300 lines on purpose: one bench, the knowledge index at scale: the synthetic corpus, each candidate
 * measured in a child process and the figures are one measurement.
 */
import { execFileSync } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import {
  buildKnowledgeIndexData,
  buildKnowledgeIndexFile,
  createKnowledgeIndex,
  createLocalKnowledgeAdapter,
  decodeKnowledgeIndexFile,
  encodeKnowledgeIndexFile,
  type KnowledgeDocument,
  loadKnowledgeDocuments,
  parseKnowledgeIndexFile,
  runbookFields,
  tokenizeMixedText,
} from '@diagnosis/core/adapters';
import MiniSearch from 'minisearch';
import { generateRunbooks } from '../test/support/generated-runbooks.ts';
import { examplePath, toolCall } from '../test/support/tool-call.ts';

const CANDIDATES = ['inverted index', 'minisearch', 'minisearch without stored fields'] as const;
type Candidate = (typeof CANDIDATES)[number];

interface Measurement {
  candidate: Candidate;
  documents: number;
  buildMs: number;
  buildCpuMs: number;
  encodeMs: number;
  fileBytes: number;
  initMs: number;
  initCpuMs: number;
  firstLookupCpuMs: number;
  /** MiniSearch only. */
  loadAsyncMs?: number;
  firstLookupMs: number;
  queryP50: number;
  queryP95: number;
  queryCpuP95: number;
  heapMiB: number;
  rssMiB: number;
  peakRssMiB: number;
}

const percentile = (samples: number[], p: number) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
};
const median = (samples: number[]) => percentile(samples, 0.5);
const time = <T>(body: () => T): [T, number] => {
  const begin = performance.now();
  const result = body();
  return [result, performance.now() - begin];
};
/** Wall time and this process's CPU time (user + system, all its threads), in ms. */
const timeWithCpu = <T>(body: () => T): [T, number, number] => {
  const cpu = process.cpuUsage();
  const [result, wall] = time(body);
  const used = process.cpuUsage(cpu);
  return [result, wall, (used.user + used.system) / 1_000];
};
const MiB = 1_048_576;

/** Heap plus memory outside it (typed arrays' buffers), after two full collections. */
function collect(): { heap: number; rss: number } {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
  const usage = process.memoryUsage();
  return { heap: usage.heapUsed + usage.external, rss: usage.rss };
}

interface Searchable {
  search: (query: string, enterpriseId: string, service: string | undefined) => unknown;
}

/** The runs every candidate answers: generated queries, two tenants, with and without a service. */
async function queryLatencies(searchable: Searchable, queries: readonly string[], services: readonly string[]) {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let run = 0; run < 1_050; run += 1) {
    const query = queries[run % queries.length] ?? '';
    const enterpriseId = run % 2 === 0 ? 'E1001' : 'E2002';
    const service = run % 3 === 0 ? undefined : services[run % services.length];
    const cpuBefore = process.cpuUsage();
    const begin = performance.now();
    await searchable.search(query, enterpriseId, service);
    const ended = performance.now();
    const used = process.cpuUsage(cpuBefore);
    if (run >= 50) {
      wall.push(ended - begin);
      cpu.push((used.user + used.system) / 1_000);
    }
  }
  return { wall, cpu };
}

const MINISEARCH_TOKENIZE = { tokenize: tokenizeMixedText, processTerm: (term: string) => term };

function miniSearchRows(documents: readonly KnowledgeDocument[]) {
  return documents.map((document, id) => ({
    id,
    docId: document.docId,
    title: document.title,
    tags: document.tags.join(' '),
    text: document.body,
    service: document.service?.toLowerCase() ?? '',
    enterprise: document.enterprise ?? '',
  }));
}

async function measureInChild(candidate: Candidate, count: number): Promise<Measurement> {
  const samples = await loadKnowledgeDocuments(examplePath('knowledge'));
  const { documents, queries } =
    count === samples.length
      ? { documents: samples, queries: samples.map((sample) => sample.title) }
      : generateRunbooks(samples, { count });
  const services = [...new Set(documents.map((document) => document.service ?? ''))];
  const builds = count >= 10_000 ? 3 : 5;
  const before = collect();
  let result: Omit<Measurement, 'heapMiB' | 'rssMiB' | 'peakRssMiB' | 'loadAsyncMs' | 'initCpuMs' | 'firstLookupCpuMs'>;
  let loadAsyncMs: number | undefined;
  let initCpuMs = 0;
  let firstLookupCpuMs = 0;

  if (candidate === 'inverted index') {
    const buildTimes: number[] = [];
    const buildCpu: number[] = [];
    let data = buildKnowledgeIndexData([]);
    for (let run = 0; run < builds; run += 1) {
      const [built, wall, cpu] = timeWithCpu(() => buildKnowledgeIndexData(documents.map(runbookFields)));
      data = built;
      buildTimes.push(wall);
      buildCpu.push(cpu);
    }
    const [bytes, encodeMs] = time(() => encodeKnowledgeIndexFile(data));
    const [file, initMs, initCpu] = timeWithCpu(() => parseKnowledgeIndexFile(bytes));
    initCpuMs = initCpu;
    if (typeof file === 'string') throw new Error(file);
    const adapter = createLocalKnowledgeAdapter(file);
    const search: Searchable['search'] = (query, enterpriseId, service) =>
      adapter.execute(
        toolCall(
          'lookup_knowledge',
          { query, top_k: 5, ...(service === undefined ? {} : { service }) },
          { enterpriseId },
        ),
      );
    const cpuBefore = process.cpuUsage();
    const begin = performance.now();
    await search(queries[0] ?? '', 'E1001', undefined);
    const firstLookupMs = performance.now() - begin;
    const firstCpu = process.cpuUsage(cpuBefore);
    firstLookupCpuMs = (firstCpu.user + firstCpu.system) / 1_000;
    const latencies = await queryLatencies({ search }, queries, services);
    result = {
      candidate,
      documents: count,
      buildMs: median(buildTimes),
      buildCpuMs: median(buildCpu),
      encodeMs,
      fileBytes: bytes.length,
      initMs,
      firstLookupMs,
      queryP50: median(latencies.wall),
      queryP95: percentile(latencies.wall, 0.95),
      queryCpuP95: percentile(latencies.cpu, 0.95),
    };
    // Keep the decoded index alive for the memory figure, as a warm Lambda does.
    (globalThis as { retained?: unknown }).retained = [adapter, file];
  } else {
    const stored = candidate === 'minisearch';
    const options = {
      fields: ['title', 'tags', 'text'],
      ...(stored ? { storeFields: ['docId', 'title', 'service', 'enterprise'] } : {}),
      ...MINISEARCH_TOKENIZE,
      searchOptions: { boost: { title: 3, tags: 2 }, combineWith: 'OR' as const, ...MINISEARCH_TOKENIZE },
    };
    const rows = miniSearchRows(documents);
    const buildTimes: number[] = [];
    const buildCpu: number[] = [];
    let index = new MiniSearch(options);
    for (let run = 0; run < builds; run += 1) {
      const [built, wall, cpu] = timeWithCpu(() => {
        const fresh = new MiniSearch(options);
        fresh.addAll(rows);
        return fresh;
      });
      index = built;
      buildTimes.push(wall);
      buildCpu.push(cpu);
    }
    const [json, encodeMs] = time(() => JSON.stringify(index));
    const [loaded, initMs, initCpu] = timeWithCpu(() => MiniSearch.loadJS(JSON.parse(json), options));
    initCpuMs = initCpu;
    // loadJSAsync does the same re-insertion, yielding to the event loop between chunks: the total is what counts.
    const asyncBegin = performance.now();
    await MiniSearch.loadJSAsync(JSON.parse(json), options);
    loadAsyncMs = performance.now() - asyncBegin;
    const search: Searchable['search'] = (query, enterpriseId, service) => {
      const metadata = (id: number) => (stored ? undefined : rows[id]);
      return loaded
        .search(query, {
          filter: (hit) => {
            const owner = (metadata(hit.id) ?? hit).enterprise;
            return owner === '' || owner === enterpriseId;
          },
          boostDocument: (id, _term, storedFields) =>
            service !== undefined && (metadata(id as number) ?? storedFields)?.service === service ? 2 : 1,
        })
        .slice(0, 5);
    };
    const [, firstLookupMs, firstCpu] = timeWithCpu(() => search(queries[0] ?? '', 'E1001', undefined));
    firstLookupCpuMs = firstCpu;
    const latencies = await queryLatencies({ search }, queries, services);
    result = {
      candidate,
      documents: count,
      buildMs: median(buildTimes),
      buildCpuMs: median(buildCpu),
      encodeMs,
      fileBytes: Buffer.byteLength(json),
      initMs,
      firstLookupMs,
      queryP50: median(latencies.wall),
      queryP95: percentile(latencies.wall, 0.95),
      queryCpuP95: percentile(latencies.cpu, 0.95),
    };
    (globalThis as { retained?: unknown }).retained = [loaded, stored ? undefined : rows];
  }
  const after = collect();
  return {
    ...result,
    ...(loadAsyncMs === undefined ? {} : { loadAsyncMs }),
    initCpuMs,
    firstLookupCpuMs,
    heapMiB: (after.heap - before.heap) / MiB,
    rssMiB: (after.rss - before.rss) / MiB,
    peakRssMiB: process.resourceUsage().maxRSS / 1_024,
  };
}

/** Cold start as Diagnose pays it with the example world: the file check at init, the decode on the first lookup. */
async function exampleWorld(): Promise<void> {
  const documents = await loadKnowledgeDocuments(examplePath('knowledge'));
  const bytes = buildKnowledgeIndexFile(documents);
  const inits: number[] = [];
  const decodes: number[] = [];
  for (let run = 0; run < 200; run += 1) {
    const [file, initMs] = time(() => parseKnowledgeIndexFile(bytes));
    if (typeof file === 'string') throw new Error(file);
    inits.push(initMs);
    decodes.push(
      time(() => {
        const data = decodeKnowledgeIndexFile(file);
        if (typeof data === 'string') throw new Error(data);
        return createKnowledgeIndex(data);
      })[1],
    );
  }
  const options = {
    fields: ['title', 'tags', 'text'],
    storeFields: ['docId', 'title', 'service', 'enterprise'],
    ...MINISEARCH_TOKENIZE,
  };
  const miniSearch = new MiniSearch(options);
  miniSearch.addAll(miniSearchRows(documents));
  const json = JSON.stringify(miniSearch);
  const miniSearchLoads: number[] = [];
  for (let run = 0; run < 200; run += 1) {
    miniSearchLoads.push(time(() => MiniSearch.loadJS(JSON.parse(json), options))[1]);
  }
  console.log(
    `example world (10 runbooks): file ${bytes.length.toLocaleString('en')} bytes; cold-start check median ${(median(inits) * 1_000).toFixed(0)} µs; decode on first lookup median ${(median(decodes) * 1_000).toFixed(0)} µs (200 runs, warm JIT); before: MiniSearch JSON ${Buffer.byteLength(json).toLocaleString('en')} bytes, JSON.parse + loadJS at cold start median ${(median(miniSearchLoads) * 1_000).toFixed(0)} µs`,
  );
}

export async function benchKnowledgeIndex(): Promise<void> {
  const sizes = (process.env.BENCH_KNOWLEDGE_SIZES ?? '10,1000,10000').split(',').map(Number);
  console.log('\n## local knowledge at scale: synthetic runbooks, Zipf vocabulary of examples/knowledge (issue #14)');
  await exampleWorld();
  console.log(
    '| candidate | docs | build ms: wall (per 1,000) / CPU | file MiB | serialize ms | load at init ms: wall / CPU (loadJSAsync) | first lookup ms: wall / CPU | query p50 / p95 ms (CPU p95) | heap+external Δ MiB | RSS Δ MiB | peak RSS MiB |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  const script = fileURLToPath(import.meta.url);
  const candidates = CANDIDATES.filter((candidate) =>
    (process.env.BENCH_KNOWLEDGE_CANDIDATES ?? CANDIDATES.join(',')).split(',').includes(candidate),
  );
  for (const count of sizes) {
    for (const candidate of candidates) {
      const output = execFileSync(process.execPath, ['--expose-gc', script, '--child', candidate, String(count)], {
        encoding: 'utf8',
        maxBuffer: 1 << 20,
      });
      const row = JSON.parse(output.trim().split('\n').at(-1) ?? '{}') as Measurement;
      const perThousand = (row.buildMs / row.documents) * 1_000;
      console.log(
        `| ${row.candidate} | ${row.documents.toLocaleString('en')} | ${row.buildMs.toFixed(0)} (${perThousand.toFixed(0)}) / ${row.buildCpuMs.toFixed(0)} | ${(row.fileBytes / MiB).toFixed(2)} | ${row.encodeMs.toFixed(0)} | ${row.initMs.toFixed(1)} / ${row.initCpuMs.toFixed(1)}${row.loadAsyncMs === undefined ? '' : ` (${row.loadAsyncMs.toFixed(0)})`} | ${row.firstLookupMs.toFixed(1)} / ${row.firstLookupCpuMs.toFixed(1)} | ${row.queryP50.toFixed(2)} / ${row.queryP95.toFixed(2)} (${row.queryCpuP95.toFixed(2)}) | ${row.heapMiB.toFixed(0)} | ${row.rssMiB.toFixed(0)} | ${row.peakRssMiB.toFixed(0)} |`,
      );
    }
  }
  console.log('targets: build ≤ 500 ms per 1,000 docs; query p95 ≤ 5 ms at 10,000 docs');
  console.log(`load average at the end: ${loadavg()[0]?.toFixed(1)} on ${availableParallelism()} cores`);
}

const [, , flag, candidate, count] = process.argv;
if (flag === '--child' && CANDIDATES.includes(candidate as Candidate)) {
  console.log(JSON.stringify(await measureInChild(candidate as Candidate, Number(count))));
} else if (import.meta.url === `file://${process.argv[1]}`) {
  await benchKnowledgeIndex();
}
