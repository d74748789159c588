/**
 * The scenario format (README "Evaluation"): a folder per scenario with `scenario.json`, an optional `world/` and an
 * optional `scripted.json`. Everything read from a scenario folder is validated here, with sizes bounded, before the
 * runner touches a database, a model or a file outside the folder.
 * NOTE: a little over 300 lines on purpose: the format's one validation (the schemas of every file and the checks
 * across them, e.g. a recording's enterprise against the scenario's) belongs in one place, so nothing reaches the
 * runner unchecked; the recorded world's own format is recorded-world.ts.
 */
import { existsSync, lstatSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { ENTERPRISE_ID_PATTERN, FEEDBACK_VERDICTS, isTimeZone, STATUS_WORDS, TOOL_NAMES } from '@diagnosis/core';
import { type DeepSeekResponse, parseMysqlSeed, type WireScript } from '@diagnosis/devkit';
import * as v from 'valibot';
import { loadRecordedWorld, type RecordedWorld } from './recorded-world.ts';

export const CATEGORIES = [
  'logs',
  'runbook',
  'mysql',
  'deploy',
  'cascade',
  'red-herring',
  'no-incident',
  'missing-context',
  'cross-tenant-bait',
  'follow-up',
  'injection',
  'timezone',
  'large-logs',
] as const;
export type Category = (typeof CATEGORIES)[number];

/** Best to worst: the scorer's conclusion about one run. */
export const VERDICTS = ['CORRECT', 'INCOMPLETE', 'ABSTAINED', 'FAILED', 'CONFIDENTLY_WRONG'] as const;
export type ScenarioVerdict = (typeof VERDICTS)[number];

export const SCENARIO_ID_PATTERN = /^[a-z0-9][a-z0-9-]{0,47}$/;
const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?(?:Z|[+-]\d{2}:\d{2})$/;

const MAX_SCENARIO_BYTES = 256 * 1024;
const MAX_SCRIPTED_BYTES = 8 * 1024 * 1024;
const MAX_GENERATE_BYTES = 256 * 1024;
const MAX_SEED_BYTES = 8 * 1024 * 1024;
/** The most files and folders one scenario folder may hold (its world included). */
const MAX_SCENARIO_ENTRIES = 20_000;
/** The most scenario folders one corpus may hold, and the most lines one generated log file may have. */
const MAX_SCENARIOS = 500;
const MAX_GENERATED_LINES = 2_000_000;

const text = (max: number) => v.pipe(v.string(), v.minLength(1), v.maxLength(max));
const keyword = text(200);
const isoWithOffset = v.pipe(
  v.string(),
  v.regex(ISO_WITH_OFFSET, 'an ISO 8601 timestamp with an offset'),
  v.check((value) => Number.isFinite(Date.parse(value)), 'a valid date'),
);

const probeSchema = v.strictObject({
  tool: v.picklist(TOOL_NAMES),
  input: v.record(v.string(), v.unknown()),
  expect: v.picklist(['EVIDENCE', 'EMPTY']),
  mustContain: v.optional(v.pipe(v.array(keyword), v.maxLength(20))),
});
export type Probe = v.InferOutput<typeof probeSchema>;

const expectedSchema = v.pipe(
  v.strictObject({
    outcome: v.picklist(['DIAGNOSIS', 'ABSTAIN']),
    rootCause: v.optional(
      v.strictObject({
        anyOf: v.pipe(
          v.array(v.pipe(v.array(keyword), v.minLength(1), v.maxLength(10))),
          v.minLength(1),
          v.maxLength(20),
        ),
      }),
    ),
    mustNotClaim: v.optional(v.pipe(v.array(keyword), v.maxLength(50)), []),
    requiredEvidence: v.optional(v.pipe(v.array(v.picklist(TOOL_NAMES)), v.maxLength(3)), []),
    scripted: v.optional(v.strictObject({ verdict: v.picklist(VERDICTS), why: text(500) })),
  }),
  v.check(
    (expected) => expected.outcome === 'ABSTAIN' || expected.rootCause !== undefined,
    'a DIAGNOSIS scenario names its root cause (expected.rootCause.anyOf)',
  ),
);
export type Expected = v.InferOutput<typeof expectedSchema>;

/** Where a captured scenario came from and what its run did (`diagnosis eval capture`). */
export const scenarioCaptureSchema = v.strictObject({
  runId: text(128),
  capturedAt: v.pipe(v.string(), v.isoTimestamp()),
  source: text(200),
  feedback: v.strictObject({ verdict: v.picklist(FEEDBACK_VERDICTS), rootCause: v.nullable(text(1_000)) }),
  // NOTE: the status word (PUBLISHED…); a capture written before the words were one says SUCCEEDED, still read, as
  // PUBLISHED, for a deprecation period.
  original: v.strictObject({
    status: v.pipe(
      v.picklist([...STATUS_WORDS, 'SUCCEEDED']),
      v.transform((status) => (status === 'SUCCEEDED' ? 'PUBLISHED' : status)),
    ),
    conclusion: v.nullable(text(1_000)),
  }),
  /** What a faithful replay would need that the audit did not hold. */
  missing: v.pipe(v.array(text(500)), v.maxLength(100)),
});
export type ScenarioCapture = v.InferOutput<typeof scenarioCaptureSchema>;

/**
 * A past incident the scenario's enterprise holds before its run (docs/memory.md): a rated diagnosis of an earlier,
 * made-up run. NOTE: a scenario with past incidents runs against a table of its own, so no other scenario meets them.
 */
const pastIncidentSchema = v.strictObject({
  runId: v.pipe(v.string(), v.regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,79}$/, 'a run id')),
  occurredAt: v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/, 'a UTC instant with ms')),
  services: v.pipe(v.array(text(100)), v.maxLength(5)),
  conclusion: text(600),
  rootCause: v.nullable(text(600)),
  rating: v.picklist(['CORRECT', 'PARTIALLY_CORRECT']),
});

/**
 * A change of the scenario's enterprise, recorded in its own table before its run (docs/changes.md): what a change
 * webhook would have recorded, read by the run through `query_logs` (service `changes`).
 */
const changeSchema = v.strictObject({
  eventId: text(256),
  at: v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/, 'a UTC instant with ms')),
  service: text(100),
  kind: v.picklist(['deploy', 'config', 'flag', 'infra']),
  ref: v.nullable(text(200)),
  actor: v.nullable(text(200)),
  summary: text(1_000),
  url: v.nullable(text(1_000)),
});

const scenarioSchema = v.strictObject({
  id: v.pipe(v.string(), v.regex(SCENARIO_ID_PATTERN, 'lower-case letters, digits and dashes, at most 48')),
  title: text(200),
  category: v.picklist(CATEGORIES),
  enterpriseId: v.pipe(v.string(), v.regex(ENTERPRISE_ID_PATTERN, 'a canonical enterprise id')),
  now: isoWithOffset,
  /** The deployment's time zone the run read `now` in (DIAGNOSIS_TIMEZONE); absent: the default, Asia/Shanghai. */
  timeZone: v.optional(
    v.pipe(
      v.string(),
      v.check((zone: string) => isTimeZone(zone), 'an IANA time zone name'),
    ),
  ),
  query: text(4_000),
  previousTurn: v.optional(v.strictObject({ query: text(4_000) })),
  expected: expectedSchema,
  probes: v.optional(v.pipe(v.array(probeSchema), v.maxLength(50)), []),
  capture: v.optional(scenarioCaptureSchema),
  pastIncidents: v.optional(v.pipe(v.array(pastIncidentSchema), v.maxLength(20))),
  changes: v.optional(v.pipe(v.array(changeSchema), v.maxLength(50))),
  /** The scenario this one is the recurrence of: the summary reports the rounds a past incident saved against it. */
  baseline: v.optional(v.pipe(v.string(), v.regex(SCENARIO_ID_PATTERN))),
});
type ScenarioSpec = v.InferOutput<typeof scenarioSchema>;

// NOTE: a wire response is checked only for its shape here; the real provider parses it as it would DeepSeek's.
const wireResponse = v.looseObject({
  id: v.pipe(v.string(), v.maxLength(200)),
  object: v.literal('chat.completion'),
  created: v.number(),
  model: v.pipe(v.string(), v.minLength(1), v.maxLength(200)),
  choices: v.pipe(v.array(v.looseObject({ message: v.looseObject({ role: v.literal('assistant') }) })), v.minLength(1)),
});
const conversation = {
  responses: v.pipe(v.array(wireResponse), v.minLength(1), v.maxLength(100)),
  judge: v.optional(v.pipe(v.array(wireResponse), v.minLength(1), v.maxLength(10))),
};
const scriptedSchema = v.strictObject({
  description: v.optional(text(2_000)),
  ...conversation,
  previousTurn: v.optional(v.strictObject(conversation)),
});
/** A wire response in DeepSeek's chat-completions format, as replayed (only its shape is checked on load). */
export type WireResponse = v.InferOutput<typeof wireResponse>;
type ScriptedConversation = v.InferOutput<typeof scriptedSchema>;

const templateEvent = v.strictObject({
  from: isoWithOffset,
  to: isoWithOffset,
  everyMs: v.pipe(v.number(), v.integer(), v.minValue(100), v.maxValue(86_400_000)),
  enterpriseId: v.pipe(v.string(), v.regex(ENTERPRISE_ID_PATTERN)),
  level: v.picklist(['ERROR', 'WARN', 'INFO']),
  message: text(1_000),
  traceId: v.optional(v.boolean()),
});
const generatedFile = v.strictObject({
  name: v.pipe(v.string(), v.regex(/^[a-z0-9][a-z0-9._-]{0,63}\.jsonl$/, 'a plain file name ending in .jsonl')),
  service: text(100),
  seed: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(2 ** 31 - 1)),
  lines: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_GENERATED_LINES)),
  start: isoWithOffset,
  end: isoWithOffset,
  enterprises: v.pipe(v.array(v.pipe(v.string(), v.regex(ENTERPRISE_ID_PATTERN))), v.minLength(1), v.maxLength(20)),
  noise: v.pipe(
    v.array(
      v.strictObject({
        weight: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(1_000_000)),
        level: v.picklist(['ERROR', 'WARN', 'INFO']),
        message: text(1_000),
      }),
    ),
    v.minLength(1),
    v.maxLength(50),
  ),
  events: v.optional(v.pipe(v.array(templateEvent), v.maxLength(50)), []),
});
const generateSchema = v.strictObject({ files: v.pipe(v.array(generatedFile), v.minLength(1), v.maxLength(10)) });
export type GeneratedLogFile = v.InferOutput<typeof generatedFile>;

export interface Scenario extends ScenarioSpec {
  /** The scenario's folder. */
  dir: string;
  /** The scenario's own world, or undefined: the repository's example world. */
  worldDir: string | undefined;
  scripted: ScriptedConversation | undefined;
  generatedLogs: GeneratedLogFile[];
  /** `world/recorded.json`: a captured run's recorded evidence, answered instead of the world's adapters. */
  recording: RecordedWorld | undefined;
  /**
   * Offline, instead of `scripted`: a model that answers each request from what it carries (an imported benchmark
   * case's replay, cloud-opsbench/replay-model.ts). Never read from a scenario folder.
   */
  replayModel?: ReplayModel | undefined;
}

/** A scripted model whose answers are functions of the requests, and the responses it gave, in order. */
interface ReplayModel {
  agent: WireScript;
  judge: WireScript;
  responses: { agent: DeepSeekResponse[]; judge: DeepSeekResponse[] };
}

/** A scenario folder that could not be read: its name and the fields at fault (never file contents). */
export class ScenarioError extends Error {
  readonly scenario: string;
  readonly problems: string[];
  constructor(scenario: string, problems: string[]) {
    super(`${scenario}: ${problems.join('; ')}`);
    this.name = 'ScenarioError';
    this.scenario = scenario;
    this.problems = problems;
  }
}

function readJson(path: string, maxBytes: number, scenario: string): unknown {
  const size = statSync(path).size;
  if (size > maxBytes) throw new ScenarioError(scenario, [`${path} is larger than ${maxBytes} bytes`]);
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    throw new ScenarioError(scenario, [`${path} is not valid JSON`]);
  }
}

function parse<T extends v.GenericSchema>(schema: T, value: unknown, scenario: string, file: string) {
  const result = v.safeParse(schema, value);
  if (result.success) return result.output as v.InferOutput<T>;
  const problems = result.issues.slice(0, 8).map((issue) => {
    const path = v.getDotPath(issue) ?? '(root)';
    return `${file} ${path}: ${issue.message}`;
  });
  throw new ScenarioError(scenario, problems);
}

/** Whether `path` is `folder` or inside it (both canonical). */
const isInside = (folder: string, path: string) => {
  const from = relative(folder, path);
  return from === '' || (!from.startsWith('..') && !isAbsolute(from));
};

/**
 * Refuses a scenario folder holding a symbolic link that leads out of it (or nowhere): the runner reads the folder's
 * files as the scenario's world, and a link would hand it any file of this machine. Links inside the folder are
 * fine. NOTE: checked before anything in the folder is read; the walk is bounded.
 */
function assertSelfContained(folder: string, name: string): void {
  const root = realpathSync(folder);
  const pending = [folder];
  let seen = 0;
  while (pending.length > 0) {
    const current = pending.pop() as string;
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      seen += 1;
      if (seen > MAX_SCENARIO_ENTRIES) throw new ScenarioError(name, [`more than ${MAX_SCENARIO_ENTRIES} files`]);
      const path = join(current, entry.name);
      if (entry.isSymbolicLink()) {
        let target: string;
        try {
          target = realpathSync(path);
        } catch {
          throw new ScenarioError(name, [`${relative(folder, path)} is a symbolic link to nothing`]);
        }
        if (!isInside(root, target)) {
          throw new ScenarioError(name, [
            `${relative(folder, path)} is a symbolic link that leaves the scenario folder`,
          ]);
        }
      } else if (entry.isDirectory()) {
        pending.push(path);
      }
    }
  }
}

/** One scenario folder, validated. */
export function loadScenario(dir: string): Scenario {
  const folder = resolve(dir);
  const name = folder.split('/').pop() ?? folder;
  if (lstatSync(folder).isSymbolicLink()) {
    throw new ScenarioError(name, ['the scenario folder is a symbolic link']);
  }
  assertSelfContained(folder, name);
  const specPath = join(folder, 'scenario.json');
  if (!existsSync(specPath)) throw new ScenarioError(name, ['no scenario.json']);
  const spec = parse(scenarioSchema, readJson(specPath, MAX_SCENARIO_BYTES, name), name, 'scenario.json');
  if (spec.id !== name) throw new ScenarioError(name, [`scenario.json id "${spec.id}" differs from the folder name`]);
  if (spec.expected.outcome === 'ABSTAIN' && spec.expected.rootCause !== undefined) {
    throw new ScenarioError(name, ['scenario.json expected.rootCause: an ABSTAIN scenario has no root cause']);
  }
  const scriptedPath = join(folder, 'scripted.json');
  const scripted = existsSync(scriptedPath)
    ? parse(scriptedSchema, readJson(scriptedPath, MAX_SCRIPTED_BYTES, name), name, 'scripted.json')
    : undefined;
  if (scripted !== undefined && (spec.previousTurn === undefined) !== (scripted.previousTurn === undefined)) {
    throw new ScenarioError(name, ['scripted.json previousTurn: present exactly when scenario.json has previousTurn']);
  }
  if (spec.expected.scripted !== undefined && scripted === undefined) {
    throw new ScenarioError(name, ['scenario.json expected.scripted: there is no scripted.json']);
  }
  const worldDir = existsSync(join(folder, 'world')) ? join(folder, 'world') : undefined;
  let generatedLogs: GeneratedLogFile[] = [];
  const generatePath = worldDir === undefined ? undefined : join(worldDir, 'logs', 'generate.json');
  if (generatePath !== undefined && existsSync(generatePath)) {
    generatedLogs = parse(
      generateSchema,
      readJson(generatePath, MAX_GENERATE_BYTES, name),
      name,
      'generate.json',
    ).files;
    const names = new Set<string>();
    for (const file of generatedLogs) {
      if (names.has(file.name) || existsSync(join(worldDir as string, 'logs', file.name))) {
        throw new ScenarioError(name, [`generate.json ${file.name}: a log file of that name already exists`]);
      }
      names.add(file.name);
      if (Date.parse(file.end) <= Date.parse(file.start)) {
        throw new ScenarioError(name, [`generate.json ${file.name}: end must be after start`]);
      }
    }
  }
  const seedPath = worldDir === undefined ? undefined : join(worldDir, 'mysql', 'seed.sql');
  if (seedPath !== undefined && existsSync(seedPath)) {
    if (statSync(seedPath).size > MAX_SEED_BYTES) {
      throw new ScenarioError(name, [`world/mysql/seed.sql is larger than ${MAX_SEED_BYTES} bytes`]);
    }
    const seed = parseMysqlSeed(readFileSync(seedPath, 'utf8'));
    if (!seed.ok) throw new ScenarioError(name, [`world/mysql/seed.sql ${seed.problem}`]);
  }
  const recording = loadRecordedWorld(worldDir);
  if (recording !== undefined && 'problems' in recording) throw new ScenarioError(name, recording.problems);
  if (recording !== undefined && recording.enterpriseId !== spec.enterpriseId) {
    throw new ScenarioError(name, ['world/recorded.json enterpriseId: differs from scenario.json']);
  }
  return { ...spec, dir: folder, worldDir, scripted, generatedLogs, recording };
}

/**
 * Every scenario folder of a corpus (sub-folders holding a scenario.json), sorted by id; `only` keeps the named ones
 * and refuses a name that is not there.
 */
export function loadCorpus(dir: string, only?: readonly string[]): Scenario[] {
  const root = resolve(dir);
  if (!existsSync(root) || !statSync(root).isDirectory()) throw new ScenarioError(dir, ['not a directory']);
  const entries = readdirSync(root, { withFileTypes: true });
  // NOTE: a linked scenario folder is refused, not skipped: a corpus is exactly the folders it holds.
  const linked = entries.find((entry) => entry.isSymbolicLink());
  if (linked !== undefined) throw new ScenarioError(linked.name, ['the scenario folder is a symbolic link']);
  const folders = entries
    .filter((entry) => entry.isDirectory() && existsSync(join(root, entry.name, 'scenario.json')))
    .map((entry) => entry.name)
    .sort();
  if (folders.length > MAX_SCENARIOS) throw new ScenarioError(dir, [`more than ${MAX_SCENARIOS} scenarios`]);
  if (only !== undefined) {
    const missing = only.filter((id) => !folders.includes(id));
    if (missing.length > 0) throw new ScenarioError(dir, [`no scenario named ${missing.join(', ')}`]);
  }
  const chosen = only === undefined ? folders : folders.filter((name) => only.includes(name));
  return chosen.map((name) => loadScenario(join(root, name)));
}
