import * as v from 'valibot';
import { MASKING_MODES } from '../config/masking-mode.ts';
import { diagnosisDraftSchema } from '../draft/diagnosis-draft.ts';
import { MAX_TOOL_CALL_ID_CHARS } from '../run/ids.ts';
import { MODEL_FAILURE_KINDS } from '../run/model-failure.ts';
import { processScorecardSchema } from '../run/process-scores.ts';
import { emptyRunUsage } from '../run/run-context.ts';
import { DEFAULT_RUN_LIMITS } from '../run/run-limits.ts';
import { TRIGGER_SOURCES, TRIGGER_TEXT_CAPS } from '../run/run-trigger.ts';
import { STOP_REASONS } from '../run/stop-reason.ts';
import { TOOL_NAMES } from '../tools/evidence-adapter.ts';
import { MODEL_ROLES } from './audit-hook.ts';
import { RUN_STATUSES } from './run-store.ts';

export const SCHEMA_VERSION = 1;
/** Caps that keep every item far under DynamoDB's 400 KB, whatever a tool or the model produced. */
export const ITEM_CAPS = Object.freeze({
  resultBytes: 256 * 1024,
  inputBytes: 16 * 1024,
  errorDetailChars: 1_000,
  reasoningChars: 32_000,
  /** A sealed pseudonym batch (base64): 400 entries of at most 256-character values fit with room to spare. */
  pseudonymBatchChars: 300 * 1024,
  /** Tool calls listed on one step item; a round that asked for more keeps the count in `tool_calls_total`. */
  stepToolCalls: 100,
  toolCallIdChars: MAX_TOOL_CALL_ID_CHARS,
  /**
   * The most the attributes set by a completion may hold, in bytes of their JSON. With a new run item's cap, a run
   * item stays far under DynamoDB's 400 KB item limit (whose own count differs slightly from JSON's), so a
   * completion that fits here never fails on size.
   */
  completionBytes: 300 * 1024,
  /** The most a new run item may hold (its query is limited far below this before a run starts). */
  newRunItemBytes: 64 * 1024,
});

/** One item of the table, as written and read: its key and its attributes. */
export type Item = Record<string, unknown> & { pk: string; sk: string };

const nullable = <T extends v.GenericSchema>(schema: T) => v.nullable(schema);
const base = {
  pk: v.string(),
  sk: v.string(),
  entity: v.string(),
  schema_version: v.literal(SCHEMA_VERSION),
  ttl: v.pipe(v.number(), v.integer()),
};

/**
 * An object schema of numbers with exactly the keys of `template`. NOTE: the usage and limits schemas are built from
 * the keys of `emptyRunUsage()` and `DEFAULT_RUN_LIMITS`, never copied by hand, so a field added to `RunUsage` or
 * `RunLimits` is stored and read back without anyone remembering this file.
 */
function numberFieldsOf<T extends { [K in keyof T]: number }>(template: T) {
  const entries = Object.fromEntries(Object.keys(template).map((key) => [key, v.number()]));
  return v.object(entries as { -readonly [K in keyof T]-?: v.NumberSchema<undefined> });
}

/**
 * A run's `RunUsage`: exactly the counters of `emptyRunUsage()`. NOTE: `cachedInputTokens` and `estimatedTokenRounds`
 * came later; a run stored before them reads back with 0.
 */
export const runUsageSchema = v.object({
  ...numberFieldsOf(emptyRunUsage()).entries,
  cachedInputTokens: v.optional(v.number(), 0),
  estimatedTokenRounds: v.optional(v.number(), 0),
});
/**
 * A run's `RunLimits`: exactly the limits of `DEFAULT_RUN_LIMITS`. NOTE: `modelRequestTimeoutMs`,
 * `maxToolCallsPerRound` and `maxRejectedToolCalls` came later; a run stored before them reads back without them (it
 * had no such limits).
 */
export const runLimitsSchema = v.object({
  ...numberFieldsOf(DEFAULT_RUN_LIMITS).entries,
  modelRequestTimeoutMs: v.exactOptional(v.number()),
  maxToolCallsPerRound: v.exactOptional(v.number()),
  maxRejectedToolCalls: v.exactOptional(v.number()),
});

const progressSchema = v.object({
  modelCalls: v.number(),
  toolCalls: v.number(),
  rejectedToolCalls: v.number(),
  totalTokens: v.number(),
  checks: v.array(
    v.object({
      toolCallId: v.string(),
      toolName: v.picklist(TOOL_NAMES),
      status: v.picklist(['READY', 'ERROR']),
      empty: v.boolean(),
      evaluation: v.nullable(v.picklist(['GAINED', 'NO_GAIN', 'PENDING'])),
    }),
  ),
});

const publishedSchema = v.object({
  draft: diagnosisDraftSchema,
  citations: v.array(v.object({ tool_call_id: v.string(), tool_name: v.picklist(TOOL_NAMES), empty: v.boolean() })),
});

/** A run's `ModelFailure`: a kind, a status number and identifiers only (never a text of the endpoint). */
const modelFailureSchema = v.object({
  kind: v.picklist(MODEL_FAILURE_KINDS),
  http_status: v.nullable(v.pipe(v.number(), v.integer())),
  error_class: v.pipe(v.string(), v.regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/)),
  network_code: v.nullable(v.pipe(v.string(), v.regex(/^[A-Z][A-Z0-9_]{1,63}$/))),
});

const contentSourceSchema = v.picklist([
  'PROVIDER_REASONING+ASSISTANT_TEXT',
  'PROVIDER_REASONING',
  'ASSISTANT_TEXT',
  'NONE',
]);

/** A triggered run's `RunTrigger`, every text bounded. */
const triggerSchema = v.object({
  source: v.picklist(TRIGGER_SOURCES),
  incident_key: v.pipe(v.string(), v.minLength(1), v.maxLength(TRIGGER_TEXT_CAPS.incidentKey)),
  event_id: v.pipe(v.string(), v.minLength(1), v.maxLength(TRIGGER_TEXT_CAPS.eventId)),
  title: v.pipe(v.string(), v.maxLength(TRIGGER_TEXT_CAPS.title)),
  started_at: v.string(),
});

/** A run's incident window as stored: two UTC instants. */
const windowSchema = v.object({ from: v.string(), to: v.string() });

export const runItemSchema = v.object({
  ...base,
  entity: v.literal('run'),
  run_id: v.string(),
  session_id: v.string(),
  enterprise_id: v.string(),
  kind: v.literal('DIAGNOSIS'),
  status: v.picklist(RUN_STATUSES),
  query: v.string(),
  cancel_requested_at: v.optional(v.nullable(v.string())),
  /** Absent on runs stored before it was recorded: those count as `false`. */
  continue_session: v.optional(v.boolean()),
  /** Absent on runs no trigger started (and on runs stored before triggers existed). */
  trigger: v.optional(v.nullable(triggerSchema)),
  /** Absent on runs without an incident window. */
  window: v.optional(v.nullable(windowSchema)),
  stop_reason: nullable(v.picklist(STOP_REASONS)),
  /** Absent on runs stored before it was recorded: those read back as null. */
  collection_stop_reason: v.optional(v.nullable(v.picklist(STOP_REASONS))),
  error_code: nullable(v.string()),
  /** Absent on runs stored before it was recorded: those read back as null. */
  model_failure: v.optional(v.nullable(modelFailureSchema)),
  usage: nullable(runUsageSchema),
  progress: nullable(progressSchema),
  draft: nullable(diagnosisDraftSchema),
  conclusion: nullable(v.string()),
  published_result: nullable(publishedSchema),
  report: v.optional(v.unknown()),
  limits: v.optional(v.nullable(runLimitsSchema)),
  deadline_at: v.optional(v.nullable(v.string())),
  /** The masking the run ran with; absent on runs stored before masking existed (they ran without). */
  masking: v.optional(v.nullable(v.picklist(MASKING_MODES))),
  /**
   * The workflow execution that owns the run (its ARN): set when the workflow is started for it (a QUEUED run) or by
   * the invocation that started it (a batch item). Absent on runs stored before it existed and on local runs.
   */
  execution_arn: v.optional(v.nullable(v.string())),
  /** The last sign of life of the invocation running it (ISO): set at the claim, on progress and every heartbeat. */
  heartbeat_at: v.optional(v.nullable(v.string())),
  /** Absent on runs stored before it was recorded, and on runs completed without one: those read back as null. */
  process_scorecard: v.optional(v.nullable(processScorecardSchema)),
  created_at: v.string(),
  ended_at: nullable(v.string()),
  gsi1pk: v.string(),
  gsi1sk: v.string(),
});

/** An enterprise's open runs (see `openRunsKey`): the ids of its QUEUED or RUNNING runs. */
export const openRunsItemSchema = v.object({
  pk: v.string(),
  sk: v.literal('RUNS'),
  entity: v.literal('tenant_open_runs'),
  enterprise_id: v.string(),
  open_run_ids: v.optional(v.array(v.string())),
});

export const stepItemSchema = v.object({
  ...base,
  entity: v.literal('agent_step'),
  run_id: v.string(),
  step_number: v.number(),
  /** Absent on the agent's rounds (and on every step stored before the SemanticGuard): those are AGENT. */
  role: v.optional(v.picklist(MODEL_ROLES)),
  model_id: v.string(),
  finish_reason: v.string(),
  input_tokens: v.number(),
  output_tokens: v.number(),
  reasoning_tokens: nullable(v.number()),
  cached_input_tokens: nullable(v.number()),
  /** Absent on steps stored before it was recorded: those read back as false (their usage was reported). */
  usage_estimated: v.optional(v.boolean()),
  reasoning_available: v.boolean(),
  content_source: contentSourceSchema,
  content_bytes: v.number(),
  // NOTE: items written before the reasoning moved to its own partition may still hold a `thought` mirror; it is
  // never read back.
  tool_calls: v.array(v.object({ tool_call_id: v.string(), tool_name: v.string() })),
  tool_calls_total: v.optional(v.number()),
  started_at: v.string(),
  ended_at: v.string(),
});

export const reasoningItemSchema = v.object({
  ...base,
  entity: v.literal('agent_reasoning_audit'),
  run_id: v.string(),
  step_number: v.number(),
  role: v.optional(v.picklist(MODEL_ROLES)),
  reasoning_content: v.pipe(v.string(), v.maxLength(ITEM_CAPS.reasoningChars)),
  assistant_text: v.pipe(v.string(), v.maxLength(ITEM_CAPS.reasoningChars)),
  content_source: contentSourceSchema,
  content_bytes: v.number(),
});

export const toolItemSchema = v.object({
  ...base,
  entity: v.literal('tool_invocation'),
  run_id: v.string(),
  tool_call_id: v.string(),
  tool_name: v.picklist(TOOL_NAMES),
  step_number: v.number(),
  disposition: v.picklist(['EXECUTED', 'REJECTED', 'STOPPED']),
  status: nullable(v.picklist(['READY', 'ERROR'])),
  empty: v.boolean(),
  code: nullable(v.string()),
  input: v.string(),
  input_truncated: v.boolean(),
  observation: v.string(),
  result: nullable(v.string()),
  result_truncated: v.boolean(),
  error_detail: nullable(v.pipe(v.string(), v.maxLength(ITEM_CAPS.errorDetailChars))),
  started_at: v.string(),
  ended_at: v.string(),
});

/** The attributes a completion sets on the run item. */
export const liveProgressSchema = v.object({
  usage: runUsageSchema,
  progress: runItemSchema.entries.progress,
  deadline_at: v.optional(v.string()),
});

export const completionSchema = v.object({
  status: v.picklist(['SUCCEEDED', 'FALLBACK', 'FAILED', 'CANCELLED']),
  stop_reason: runItemSchema.entries.stop_reason,
  collection_stop_reason: runItemSchema.entries.stop_reason,
  error_code: runItemSchema.entries.error_code,
  model_failure: v.nullable(modelFailureSchema),
  usage: runUsageSchema,
  progress: runItemSchema.entries.progress,
  draft: runItemSchema.entries.draft,
  conclusion: runItemSchema.entries.conclusion,
  published_result: runItemSchema.entries.published_result,
  report: v.unknown(),
  limits: v.nullable(runLimitsSchema),
  deadline_at: v.nullable(v.string()),
  masking: v.nullable(v.picklist(MASKING_MODES)),
  process_scorecard: v.nullable(processScorecardSchema),
  ended_at: v.string(),
});

/** One sealed batch of a run's pseudonym map, in the run's pseudonym partition. */
export const pseudonymItemSchema = v.object({
  ...base,
  entity: v.literal('pseudonym_map'),
  run_id: v.string(),
  sequence: v.pipe(v.number(), v.integer(), v.minValue(1)),
  count: v.pipe(v.number(), v.integer(), v.minValue(0)),
  iv: v.pipe(v.string(), v.maxLength(64)),
  tag: v.pipe(v.string(), v.maxLength(64)),
  ciphertext: v.pipe(v.string(), v.maxLength(ITEM_CAPS.pseudonymBatchChars)),
});
