/**
 * A Cloud-OpsBench dataset folder on this machine (github.com/LLM4Ops/Cloud-OpsBench, read where it is, never copied
 * into the repository): its cases `benchmark/<system>/<category>/<id>/` and their golden trajectories
 * `golden-trajectory/<system>/<category>/<id>/path{1,2}.json`, each file validated and bounded before anything reads
 * it. A case that cannot be read says why, with a stable code: `LOGS_ABSENT` (the public snapshot leaves out files of
 * 4 MiB or more, so many cases' `logs.json`), `METADATA_ABSENT`, `TOO_LARGE`, `MALFORMED` (with the file).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as v from 'valibot';
import { type ExpertStep, parseGoldenPath } from './golden-trajectory.ts';

/** The largest file of a case read (the real `logs.json` and `k8s_states.json` are 1–4 MB). */
const MAX_CASE_FILE_BYTES = 48 * 1024 * 1024;
/** The largest golden path read (the real ones reach about 0.5 MB). */
const MAX_GOLDEN_PATH_BYTES = 16 * 1024 * 1024;
/** The most cases one dataset may list. */
const MAX_CASES = 5_000;

export interface CaseRef {
  system: string;
  category: string;
  id: string;
  /** `<system>/<category>/<id>`. */
  key: string;
  dir: string;
  goldenDir: string;
}

export interface CaseFilter {
  systems?: readonly string[] | undefined;
  categories?: readonly string[] | undefined;
  /** Case keys `<system>/<category>/<id>`. */
  cases?: readonly string[] | undefined;
  limit?: number | undefined;
}

/** A dataset folder that is not one: what is missing, never a file's content. */
export class DatasetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DatasetError';
  }
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

function folders(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && NAME.test(entry.name))
    .map((entry) => entry.name);
}

const byNumberThenName = (a: string, b: string) => {
  const [x, y] = [Number(a), Number(b)];
  return Number.isInteger(x) && Number.isInteger(y) ? x - y : a.localeCompare(b);
};

/** The dataset's cases, in system, category and id order, as the filter keeps them. */
export function listCases(datasetDir: string, filter: CaseFilter = {}): CaseRef[] {
  const root = resolve(datasetDir);
  const benchmark = join(root, 'benchmark');
  if (!existsSync(benchmark) || !statSync(benchmark).isDirectory()) {
    throw new DatasetError(
      `${datasetDir} has no benchmark/ folder (the dataset's root holds benchmark/ and golden-trajectory/)`,
    );
  }
  const cases: CaseRef[] = [];
  for (const system of folders(benchmark).sort()) {
    if (filter.systems !== undefined && !filter.systems.includes(system)) continue;
    for (const category of folders(join(benchmark, system)).sort()) {
      if (filter.categories !== undefined && !filter.categories.includes(category)) continue;
      for (const id of folders(join(benchmark, system, category)).sort(byNumberThenName)) {
        const key = `${system}/${category}/${id}`;
        if (filter.cases !== undefined && !filter.cases.includes(key)) continue;
        cases.push({
          system,
          category,
          id,
          key,
          dir: join(benchmark, system, category, id),
          goldenDir: join(root, 'golden-trajectory', system, category, id),
        });
        if (cases.length > MAX_CASES) throw new DatasetError(`${datasetDir} lists more than ${MAX_CASES} cases`);
      }
    }
  }
  const missing = (filter.cases ?? []).filter((key) => !cases.some((ref) => ref.key === key));
  if (missing.length > 0) throw new DatasetError(`no case ${missing.join(', ')} in ${datasetDir}`);
  return filter.limit === undefined ? cases : cases.slice(0, filter.limit);
}

const text = (max: number) => v.pipe(v.string(), v.maxLength(max));

const metadataSchema = v.looseObject({
  namespace: text(100),
  query: text(2_000),
  result: v.looseObject({
    fault_taxonomy: v.pipe(text(100), v.minLength(1)),
    fault_object: v.pipe(text(200), v.minLength(1)),
    root_cause: v.pipe(text(100), v.minLength(1)),
  }),
});
type CaseMetadata = v.InferOutput<typeof metadataSchema>;

const alertSchema = v.looseObject({
  alerts: v.optional(
    v.pipe(
      v.array(
        v.looseObject({
          request_method: v.optional(text(20)),
          business_action: v.optional(text(200)),
          entry_service: v.optional(text(200)),
          url: v.optional(text(500)),
          occurrences: v.optional(v.number()),
          raw_error: v.optional(text(500)),
          // A metric anomaly: the entity, when, which metrics and their evidence lines.
          name: v.optional(text(200)),
          entity_type: v.optional(text(100)),
          time_range: v.optional(text(100)),
          metric_category: v.optional(text(300)),
          evidence: v.optional(v.pipe(v.array(text(1_000)), v.maxLength(50))),
        }),
      ),
      v.maxLength(1_000),
    ),
  ),
});
export type CaseAlert = NonNullable<v.InferOutput<typeof alertSchema>['alerts']>[number];

const logsSchema = v.record(v.string(), v.union([v.string(), v.array(v.unknown())]));
const statesSchema = v.record(v.string(), v.string());

export interface CaseFiles {
  metadata: CaseMetadata;
  alerts: CaseAlert[];
  /** Each container's log, by the dataset's key (`ts-order-service`, `….previous`, `….istio-proxy`). */
  logs: Record<string, string | unknown[]>;
  /** kubectl's output by command; empty when the case has no `k8s_states.json`. */
  states: Record<string, string>;
  /** The golden paths that could be read, in order (path1, path2). */
  paths: ExpertStep[][];
  /** Why a golden path could not be used (none there, or one malformed). */
  pathNotes: string[];
}

type SkipCode = 'LOGS_ABSENT' | 'METADATA_ABSENT' | 'TOO_LARGE' | 'MALFORMED' | 'NO_TIMESTAMPS';
export interface CaseSkip {
  code: SkipCode;
  /** The file or the rule at fault, in a few words. */
  detail: string;
}

type Read = { ok: true; value: unknown } | { ok: false; skip: CaseSkip };

function readJson(path: string, name: string, maxBytes: number): Read {
  const size = statSync(path).size;
  if (size > maxBytes) return { ok: false, skip: { code: 'TOO_LARGE', detail: `${name} is over ${maxBytes} bytes` } };
  try {
    return { ok: true, value: JSON.parse(readFileSync(path, 'utf8')) };
  } catch {
    return { ok: false, skip: { code: 'MALFORMED', detail: `${name} is not JSON` } };
  }
}

function parsed<T extends v.GenericSchema>(schema: T, read: Read, name: string) {
  if (!read.ok) return read;
  const result = v.safeParse(schema, read.value);
  if (result.success) return { ok: true as const, value: result.output as v.InferOutput<T> };
  const at = v.getDotPath(result.issues[0]) ?? 'root';
  return {
    ok: false as const,
    skip: { code: 'MALFORMED' as const, detail: `${name} ${at}: ${result.issues[0].message}` },
  };
}

/** Reads and validates one case's files; the skip says why a case cannot be imported. */
export function loadCaseFiles(ref: CaseRef): { ok: true; files: CaseFiles } | { ok: false; skip: CaseSkip } {
  const file = (name: string) => join(ref.dir, name);
  if (!existsSync(file('metadata.json')))
    return { ok: false, skip: { code: 'METADATA_ABSENT', detail: 'metadata.json' } };
  if (!existsSync(file('raw_data/logs.json'))) {
    return { ok: false, skip: { code: 'LOGS_ABSENT', detail: 'raw_data/logs.json is not in the dataset' } };
  }
  const metadata = parsed(
    metadataSchema,
    readJson(file('metadata.json'), 'metadata.json', 1024 * 1024),
    'metadata.json',
  );
  if (!metadata.ok) return metadata;
  const alert = existsSync(file('raw_data/alert.json'))
    ? parsed(alertSchema, readJson(file('raw_data/alert.json'), 'alert.json', 1024 * 1024), 'alert.json')
    : { ok: true as const, value: {} };
  if (!alert.ok) return alert;
  const logs = parsed(logsSchema, readJson(file('raw_data/logs.json'), 'logs.json', MAX_CASE_FILE_BYTES), 'logs.json');
  if (!logs.ok) return logs;
  const states = existsSync(file('raw_data/k8s_states.json'))
    ? parsed(
        statesSchema,
        readJson(file('raw_data/k8s_states.json'), 'k8s_states.json', MAX_CASE_FILE_BYTES),
        'k8s_states.json',
      )
    : { ok: true as const, value: {} };
  if (!states.ok) return states;
  const paths: ExpertStep[][] = [];
  const pathNotes: string[] = [];
  for (const name of ['path1.json', 'path2.json']) {
    const path = join(ref.goldenDir, name);
    if (!existsSync(path)) continue;
    const read = readJson(path, name, MAX_GOLDEN_PATH_BYTES);
    const golden = read.ok ? parseGoldenPath(read.value) : { ok: false as const, problem: read.skip.detail };
    if (golden.ok) paths.push(golden.steps);
    else pathNotes.push(`${name}: ${golden.problem}`);
  }
  if (paths.length === 0 && pathNotes.length === 0) pathNotes.push('no golden trajectory');
  return {
    ok: true,
    files: {
      metadata: metadata.value,
      alerts: alert.value.alerts ?? [],
      logs: logs.value,
      states: states.value,
      paths,
      pathNotes,
    },
  };
}

/** The root-cause labels of one system's cases (every `metadata.json` of it), sorted: what the question offers. */
export function systemLabels(datasetDir: string, system: string): string[] {
  const labels = new Set<string>();
  const benchmark = join(resolve(datasetDir), 'benchmark', system);
  for (const category of folders(benchmark)) {
    for (const id of folders(join(benchmark, category))) {
      const path = join(benchmark, category, id, 'metadata.json');
      if (!existsSync(path)) continue;
      const metadata = parsed(metadataSchema, readJson(path, 'metadata.json', 1024 * 1024), 'metadata.json');
      if (metadata.ok) labels.add(metadata.value.result.root_cause);
    }
  }
  return [...labels].sort();
}
