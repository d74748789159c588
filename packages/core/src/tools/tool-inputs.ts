import * as v from 'valibot';
import { issuePaths } from '../errors.ts';
import { MAX_TOOL_CALL_ID_CHARS } from '../run/ids.ts';
import type {
  KnowledgeInput,
  LogsInput,
  MysqlInput,
  MysqlParamDescriptor,
  MysqlQueryDescriptor,
  ToolName,
} from './evidence-adapter.ts';
import { TOOL_JSON_SCHEMAS } from './tool-json-schemas.ts';

const MAX_WINDOW_MS = 24 * 60 * 60 * 1000;
const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/;

const isoTimestamp = v.pipe(
  v.string(),
  v.regex(ISO_WITH_OFFSET, 'ISO 8601 with offset'),
  v.check((value) => Number.isFinite(Date.parse(value)), 'a valid date'),
  v.description('带时区偏移的 ISO 8601 时间'),
);

export const knowledgeInputSchema = v.strictObject({
  query: v.pipe(v.string(), v.minLength(1), v.maxLength(500), v.description('检索内容（1–500 字符）')),
  service: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(100), v.description('服务名，可缩小范围'))),
  top_k: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(5), v.description('返回条数 1–5'))),
});

export const logsFields = {
  service: v.pipe(v.string(), v.minLength(1), v.maxLength(100), v.description('服务名')),
  start_time: isoTimestamp,
  end_time: isoTimestamp,
  keyword: v.optional(
    v.pipe(v.string(), v.minLength(1), v.maxLength(200), v.description('关键字，不区分大小写的子串匹配')),
  ),
  level: v.optional(v.picklist(['ERROR', 'WARN', 'INFO'])),
  trace_id: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(128))),
  limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(50), v.description('最多返回行数 1–50'))),
};

const logsInputSchema = v.pipe(
  v.strictObject(logsFields),
  v.forward(
    v.check((input) => Date.parse(input.end_time) > Date.parse(input.start_time), 'end_time after start_time'),
    ['end_time'],
  ),
  v.forward(
    v.check((input) => Date.parse(input.end_time) - Date.parse(input.start_time) <= MAX_WINDOW_MS, 'window <= 24h'),
    ['end_time'],
  ),
);

// NOTE: the query name and its parameters are checked against the catalog after the structural parse.
const mysqlInputSchema = v.strictObject({
  query_name: v.pipe(v.string(), v.minLength(1), v.maxLength(100)),
  params: v.record(v.string(), v.union([v.string(), v.number()])),
});

const previousObservationSchema = v.strictObject({
  // NOTE: no description: the instructions explain the envelope once, instead of three times in the tool schemas.
  // Its format needs no check of its own: it is only ever compared with the pending call's id, a checked one.
  tool_call_id: v.pipe(v.string(), v.minLength(1), v.maxLength(MAX_TOOL_CALL_ID_CHARS)),
  evaluation: v.picklist(['GAINED', 'NO_GAIN']),
});

export function envelope<T extends v.GenericSchema>(input: T) {
  return v.strictObject({ previous_observation: v.optional(previousObservationSchema), input });
}

/** The full schema of each tool's envelope (the catalog is checked after it): the same for every run, built once. */
const ENVELOPE_SCHEMAS = {
  lookup_knowledge: envelope(knowledgeInputSchema),
  query_logs: envelope(logsInputSchema),
  query_mysql: envelope(mysqlInputSchema),
};

export interface PreviousObservation {
  tool_call_id: string;
  evaluation: 'GAINED' | 'NO_GAIN';
}

type ToolEnvelope<I> = { previous_observation?: PreviousObservation; input: I };

/**
 * The closed time range a call names (epoch ms): a `query_logs` window, or the span of a catalog query's datetime
 * parameters (one parameter: that instant); null when it names no time.
 */
export interface CallTimeRange {
  startMs: number;
  endMs: number;
}

export type ParsedEnvelope =
  | { ok: true; toolName: 'lookup_knowledge'; envelope: ToolEnvelope<KnowledgeInput>; timeRange: null }
  | { ok: true; toolName: 'query_logs'; envelope: ToolEnvelope<LogsInput>; timeRange: CallTimeRange }
  | { ok: true; toolName: 'query_mysql'; envelope: ToolEnvelope<MysqlInput>; timeRange: CallTimeRange | null }
  | { ok: false; paths: string[] };

const MAX_REPORTED_PATHS = 5;
const MAX_PATH_CHARS = 80;

/**
 * The validator of the tool boundary. It checks the envelope and the business input (for `query_mysql`, also the
 * parameters against the catalog), so that every rejection is a stable observation listing at most five field paths,
 * never the SDK's or valibot's message text.
 */
export function createToolInputParser(catalog: readonly MysqlQueryDescriptor[]) {
  const schemas = ENVELOPE_SCHEMAS;
  const catalogByName = new Map(catalog.map((entry) => [entry.name, entry]));

  return function parseToolEnvelope(toolName: ToolName, raw: unknown): ParsedEnvelope {
    const result = v.safeParse(schemas[toolName], raw);
    if (!result.success) return { ok: false, paths: boundPaths(issuePaths(result.issues, MAX_REPORTED_PATHS)) };
    if (toolName === 'query_mysql') {
      const mysql = result.output as ToolEnvelope<MysqlInput>;
      const entry = catalogByName.get(mysql.input.query_name);
      const paths = mysqlParamPaths(entry, mysql.input);
      if (paths.length > 0 || entry === undefined) return { ok: false, paths };
      return { ok: true, toolName, envelope: mysql, timeRange: mysqlTimeRange(entry, mysql.input) };
    }
    if (toolName === 'query_logs') {
      const logs = result.output as ToolEnvelope<LogsInput>;
      const timeRange = { startMs: Date.parse(logs.input.start_time), endMs: Date.parse(logs.input.end_time) };
      return { ok: true, toolName, envelope: logs, timeRange };
    }
    return { ok: true, toolName, envelope: result.output as ToolEnvelope<KnowledgeInput>, timeRange: null };
  };
}

function mysqlParamPaths(entry: MysqlQueryDescriptor | undefined, input: MysqlInput): string[] {
  if (entry === undefined) return ['input.query_name'];
  const paths: string[] = [];
  for (const name of Object.keys(input.params)) {
    if (!Object.hasOwn(entry.params, name)) paths.push(`input.params.${name}`);
  }
  for (const [name, descriptor] of Object.entries(entry.params)) {
    const value = Object.hasOwn(input.params, name) ? input.params[name] : undefined;
    if (!isValidMysqlParam(descriptor, value)) paths.push(`input.params.${name}`);
  }
  return boundPaths(paths);
}

/** The span of a valid call's datetime parameters, or null when its catalog entry declares none. */
function mysqlTimeRange(entry: MysqlQueryDescriptor, input: MysqlInput): CallTimeRange | null {
  const times = Object.entries(entry.params)
    .filter(([, descriptor]) => descriptor.type === 'datetime')
    .map(([name]) => Date.parse(String(input.params[name])));
  if (times.length === 0) return null;
  return { startMs: Math.min(...times), endMs: Math.max(...times) };
}

/**
 * Whether a value fits a catalog parameter. Used by the tool boundary (a misfit is an INVALID_INPUT rejection) and,
 * again, by the MySQL adapter before it binds anything.
 */
export function isValidMysqlParam(descriptor: MysqlParamDescriptor, value: unknown): boolean {
  switch (descriptor.type) {
    case 'string':
      return (
        typeof value === 'string' &&
        value.length > 0 &&
        (descriptor.max_length === undefined || value.length <= descriptor.max_length)
      );
    case 'integer':
      return (
        typeof value === 'number' &&
        Number.isSafeInteger(value) &&
        (descriptor.min === undefined || value >= descriptor.min) &&
        (descriptor.max === undefined || value <= descriptor.max)
      );
    case 'datetime':
      return typeof value === 'string' && ISO_WITH_OFFSET.test(value) && Number.isFinite(Date.parse(value));
  }
}

function boundPaths(paths: string[]): string[] {
  return [...new Set(paths)].slice(0, MAX_REPORTED_PATHS).map((path) => path.slice(0, MAX_PATH_CHARS));
}

/**
 * Keywords of the full schema the model does not need: bounds and patterns are enforced at the boundary
 * (`createToolInputParser`), and those it must know are in the descriptions (top_k 1–5, limit 1–50, the offset).
 */
const MODEL_OMITS = new Set([
  '$schema',
  'additionalProperties',
  'propertyNames',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'pattern',
]);

function withoutOmitted(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutOmitted);
  if (typeof schema !== 'object' || schema === null) return schema;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([key]) => !MODEL_OMITS.has(key))
      .map(([key, value]) => [key, key === 'properties' ? mapValues(value, withoutOmitted) : withoutOmitted(value)]),
  );
}

const mapValues = (record: object, map: (value: unknown) => unknown) =>
  Object.fromEntries(Object.entries(record).map(([key, value]) => [key, map(value)]));

/** The JSON Schema of each tool's envelope as sent to the model: {@link buildToolJsonSchemas} without what it does not use. */
export function buildModelToolSchemas(catalog: readonly MysqlQueryDescriptor[]): Record<ToolName, object> {
  return mapValues(buildToolJsonSchemas(catalog), withoutOmitted) as Record<ToolName, object>;
}

/**
 * The full JSON Schema of each tool's envelope (what the boundary enforces, bounds and patterns included): the
 * envelopes' schemas converted at build time (`tool-json-schemas.ts`, `node scripts/generate-json-schemas.ts`), with
 * the catalog's query names as the enum of `query_name`, as `deriveToolJsonSchemas` converts them (a test compares).
 */
export function buildToolJsonSchemas(catalog: readonly MysqlQueryDescriptor[]): Record<ToolName, object> {
  const schemas = structuredClone(TOOL_JSON_SCHEMAS) as Record<ToolName, object>;
  const names = catalog.map((entry) => entry.name);
  if (names.length > 0) {
    const mysql = schemas.query_mysql as { properties: { input: { properties: Record<string, unknown> } } };
    mysql.properties.input.properties.query_name = { enum: names, type: 'string' };
  }
  return schemas;
}
