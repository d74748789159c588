import * as v from 'valibot';
import { diagnosisDraftSchema } from '../draft/diagnosis-draft.ts';
import { isToolCallId, MAX_TOOL_CALL_ID_CHARS } from '../run/ids.ts';
import type { ProgressSnapshot } from '../run/progress-tracker.ts';
import { STOP_REASONS } from '../run/stop-reason.ts';
import { truncateChars, utf8Bytes } from '../run/utf8.ts';
import { TOOL_NAMES } from '../tools/evidence-adapter.ts';
import type { ModelStepEvent, ToolInvocationEvent } from './audit-hook.ts';
import {
  type RunOutcome,
  type RunRecord,
  RunStoreError,
  type StartRunInput,
  type StoredReasoning,
  type StoredRun,
  type StoredStep,
  type StoredToolInvocation,
} from './run-store.ts';

export const SCHEMA_VERSION = 1;
/** Caps that keep every item far under DynamoDB's 400 KB, whatever a tool or the model produced. */
export const ITEM_CAPS = Object.freeze({
  resultBytes: 256 * 1024,
  inputBytes: 16 * 1024,
  errorDetailChars: 1_000,
  reasoningChars: 32_000,
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

export type Item = Record<string, unknown> & { pk: string; sk: string };

export const runKey = (runId: string) => ({ pk: `RUN#${runId}`, sk: 'RUN' });
/**
 * The partition of a run's raw reasoning. NOTE: it is its own partition key so that IAM can keep every role but the
 * reasoning reader away from it with a `dynamodb:LeadingKeys` condition (which matches partition keys only).
 */
export const reasoningPartitionKey = (runId: string) => `REASONING#${runId}`;
export const stepSortKey = (stepNumber: number) => `STEP#${String(stepNumber).padStart(4, '0')}`;
export const toolSortKey = (toolCallId: string) => `TOOL#${toolCallId}`;

/**
 * The sort keys of tool invocation items. The canonical record of an id is `TOOL#<id>`; the harness's rejection of a
 * reused id is kept beside it as `TOOL#<id>#REUSED#001`, … so the first record stays the canonical one. A valid id
 * never holds `#`, so no model-chosen id can take the place of a reuse record; an id that is not valid (refused by
 * the harness, or one this store is handed anyway) is kept under `TOOLID#INVALID#0001`, … and never in a key.
 */
export function createToolSortKeys() {
  const reuseCounts = new Map<string, number>();
  let invalidCount = 0;
  return (event: { runId: string; toolCallId: string; code: string | null }): string => {
    if (!isToolCallId(event.toolCallId) || event.code === 'INVALID_TOOL_CALL_ID') {
      invalidCount += 1;
      return `TOOLID#INVALID#${String(invalidCount).padStart(4, '0')}`;
    }
    const key = toolSortKey(event.toolCallId);
    if (event.code !== 'DUPLICATE_TOOL_CALL_ID') return key;
    const reuse = (reuseCounts.get(`${event.runId}|${event.toolCallId}`) ?? 0) + 1;
    reuseCounts.set(`${event.runId}|${event.toolCallId}`, reuse);
    return `${key}#REUSED#${String(reuse).padStart(3, '0')}`;
  };
}

/**
 * The session index key. NOTE: it names the enterprise too: a session id is the caller's choice, so two tenants may
 * use the same one, and a follow-up must only ever find runs of its own tenant.
 */
export const sessionKey = (enterpriseId: string, sessionId: string) => `TENANT#${enterpriseId}#SESSION#${sessionId}`;

const iso = (epochMs: number) => new Date(epochMs).toISOString();
const nullable = <T extends v.GenericSchema>(schema: T) => v.nullable(schema);
const base = {
  pk: v.string(),
  sk: v.string(),
  entity: v.string(),
  schema_version: v.literal(SCHEMA_VERSION),
  ttl: v.pipe(v.number(), v.integer()),
};
const usageSchema = v.object({
  modelCalls: v.number(),
  inputTokens: v.number(),
  outputTokens: v.number(),
  totalTokens: v.number(),
  toolCalls: v.number(),
  inputBytes: v.number(),
  outputBytes: v.number(),
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
const limitsSchema = v.object({
  maxModelCalls: v.number(),
  maxTotalTokens: v.number(),
  maxToolCalls: v.number(),
  maxQueryBytes: v.number(),
  maxPreviousTurnBytes: v.number(),
  maxInputBytes: v.number(),
  maxDraftBytes: v.number(),
  finalRoundReserveMs: v.number(),
  noGainStopStreak: v.number(),
});
const publishedSchema = v.object({
  draft: diagnosisDraftSchema,
  citations: v.array(v.object({ tool_call_id: v.string(), tool_name: v.picklist(TOOL_NAMES), empty: v.boolean() })),
});
const contentSourceSchema = v.picklist([
  'PROVIDER_REASONING+ASSISTANT_TEXT',
  'PROVIDER_REASONING',
  'ASSISTANT_TEXT',
  'NONE',
]);

const runItemSchema = v.object({
  ...base,
  entity: v.literal('run'),
  run_id: v.string(),
  session_id: v.string(),
  enterprise_id: v.string(),
  kind: v.literal('DIAGNOSIS'),
  status: v.picklist(['RUNNING', 'SUCCEEDED', 'FALLBACK', 'FAILED']),
  query: v.string(),
  /** Absent on runs stored before it was recorded: those count as `false`. */
  continue_session: v.optional(v.boolean()),
  stop_reason: nullable(v.picklist(STOP_REASONS)),
  error_code: nullable(v.string()),
  usage: nullable(usageSchema),
  progress: nullable(progressSchema),
  draft: nullable(diagnosisDraftSchema),
  conclusion: nullable(v.string()),
  published_result: nullable(publishedSchema),
  report: v.optional(v.unknown()),
  limits: v.optional(v.nullable(limitsSchema)),
  deadline_at: v.optional(v.nullable(v.string())),
  created_at: v.string(),
  ended_at: nullable(v.string()),
  gsi1pk: v.string(),
  gsi1sk: v.string(),
});

const stepItemSchema = v.object({
  ...base,
  entity: v.literal('agent_step'),
  run_id: v.string(),
  step_number: v.number(),
  model_id: v.string(),
  finish_reason: v.string(),
  input_tokens: v.number(),
  output_tokens: v.number(),
  reasoning_tokens: nullable(v.number()),
  cached_input_tokens: nullable(v.number()),
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

const reasoningItemSchema = v.object({
  ...base,
  entity: v.literal('agent_reasoning_audit'),
  run_id: v.string(),
  step_number: v.number(),
  reasoning_content: v.pipe(v.string(), v.maxLength(ITEM_CAPS.reasoningChars)),
  assistant_text: v.pipe(v.string(), v.maxLength(ITEM_CAPS.reasoningChars)),
  content_source: contentSourceSchema,
  content_bytes: v.number(),
});

const toolItemSchema = v.object({
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

function validated<T extends v.GenericSchema>(schema: T, item: unknown, what: string): v.InferOutput<T> {
  const result = v.safeParse(schema, item);
  if (!result.success) {
    const path = result.issues[0]?.path?.map((step) => String(step.key)).join('.') ?? '$';
    throw new RunStoreError('CORRUPT_ITEM', `${what} item fails its schema at ${path}`);
  }
  return result.output;
}

export function ttlFor(nowMs: number, retentionDays: number): number {
  return Math.floor(nowMs / 1_000) + retentionDays * 86_400;
}

export function newRunItem(input: StartRunInput, nowMs: number, retentionDays: number): Item {
  const createdAt = iso(nowMs);
  const item = validated(
    runItemSchema,
    {
      ...runKey(input.runId),
      entity: 'run',
      schema_version: SCHEMA_VERSION,
      ttl: ttlFor(nowMs, retentionDays),
      run_id: input.runId,
      session_id: input.sessionId,
      enterprise_id: input.enterpriseId,
      kind: 'DIAGNOSIS',
      status: 'RUNNING',
      query: input.query,
      continue_session: input.continueSession,
      stop_reason: null,
      error_code: null,
      usage: null,
      progress: null,
      draft: null,
      conclusion: null,
      published_result: null,
      created_at: createdAt,
      ended_at: null,
      gsi1pk: sessionKey(input.enterpriseId, input.sessionId),
      gsi1sk: `${createdAt}#${input.runId}`,
    },
    'run',
  ) as Item;
  if (utf8Bytes(JSON.stringify(item)) > ITEM_CAPS.newRunItemBytes) {
    throw new RunStoreError('RUN_ITEM_TOO_LARGE', 'the run request does not fit in its item');
  }
  return item;
}

const completionSchema = v.object({
  status: v.picklist(['SUCCEEDED', 'FALLBACK', 'FAILED']),
  stop_reason: runItemSchema.entries.stop_reason,
  error_code: runItemSchema.entries.error_code,
  usage: usageSchema,
  progress: runItemSchema.entries.progress,
  draft: runItemSchema.entries.draft,
  conclusion: runItemSchema.entries.conclusion,
  published_result: runItemSchema.entries.published_result,
  report: v.unknown(),
  limits: v.nullable(limitsSchema),
  deadline_at: v.nullable(v.string()),
  ended_at: v.string(),
});

/** The attributes `completeRun` sets, validated before they are sent (plain JSON: no class instances, no undefined). */
export function completionAttributes(outcome: RunOutcome, nowMs: number): Record<string, unknown> {
  const attributes = JSON.parse(
    JSON.stringify({
      status: outcome.status,
      stop_reason: outcome.stopReason,
      error_code: outcome.errorCode,
      usage: outcome.usage,
      progress: outcome.progress === null ? null : plainProgress(outcome.progress),
      draft: outcome.draft,
      conclusion: outcome.publishedResult?.draft.conclusion ?? null,
      published_result: outcome.publishedResult,
      report: outcome.report ?? null,
      limits: outcome.limits ?? null,
      deadline_at: outcome.deadlineAt === undefined || outcome.deadlineAt === null ? null : iso(outcome.deadlineAt),
      ended_at: iso(nowMs),
    }),
  );
  const checked = validated(completionSchema, attributes, 'run completion');
  if (utf8Bytes(JSON.stringify(checked)) > ITEM_CAPS.completionBytes) {
    throw new RunStoreError('RUN_ITEM_TOO_LARGE', 'the run completion does not fit in its item');
  }
  return checked;
}

function plainProgress(progress: ProgressSnapshot) {
  return { ...progress, checks: progress.checks.map((check) => ({ ...check })) };
}

/**
 * A model round's two items: the step (counters, tool calls) in the run's partition, and the raw reasoning and
 * assistant text in the run's reasoning partition, kept `reasoningRetentionDays`.
 */
export function stepItems(
  event: ModelStepEvent,
  nowMs: number,
  retentionDays: number,
  reasoningRetentionDays = retentionDays,
): [Item, Item] {
  const common = {
    schema_version: SCHEMA_VERSION,
    run_id: event.runId,
    step_number: event.stepNumber,
  };
  const reasoning = truncateChars(event.reasoningContent, ITEM_CAPS.reasoningChars);
  const assistant = truncateChars(event.assistantText, ITEM_CAPS.reasoningChars);
  const contentBytes = utf8Bytes(reasoning) + utf8Bytes(assistant);
  const step = validated(
    stepItemSchema,
    {
      ...common,
      pk: runKey(event.runId).pk,
      sk: stepSortKey(event.stepNumber),
      ttl: ttlFor(nowMs, retentionDays),
      entity: 'agent_step',
      model_id: truncateChars(event.modelId, 200),
      finish_reason: truncateChars(event.finishReason, 64),
      input_tokens: event.usage.inputTokens,
      output_tokens: event.usage.outputTokens,
      reasoning_tokens: event.usage.reasoningTokens ?? null,
      cached_input_tokens: event.usage.cachedInputTokens ?? null,
      reasoning_available: reasoning.length > 0,
      content_source: event.contentSource,
      content_bytes: contentBytes,
      tool_calls: event.toolCalls.slice(0, ITEM_CAPS.stepToolCalls).map((call) => ({
        tool_call_id: truncateChars(call.toolCallId, ITEM_CAPS.toolCallIdChars),
        tool_name: truncateChars(call.toolName, 64),
      })),
      tool_calls_total: event.toolCalls.length,
      started_at: iso(event.startedAt),
      ended_at: iso(event.endedAt),
    },
    'agent_step',
  ) as Item;
  const audit = validated(
    reasoningItemSchema,
    {
      ...common,
      pk: reasoningPartitionKey(event.runId),
      sk: stepSortKey(event.stepNumber),
      ttl: ttlFor(nowMs, reasoningRetentionDays),
      entity: 'agent_reasoning_audit',
      reasoning_content: reasoning,
      assistant_text: assistant,
      content_source: event.contentSource,
      content_bytes: contentBytes,
    },
    'agent_reasoning_audit',
  ) as Item;
  return [step, audit];
}

/**
 * The canonical tool invocation record. `input` and `result` are kept as JSON text, cut at their caps (flagged), so
 * no adapter payload can make the write fail; the observation is at most 8 KiB by construction.
 */
export function toolItem(
  event: ToolInvocationEvent,
  nowMs: number,
  retentionDays: number,
  sortKey = toolSortKey(event.toolCallId),
): Item {
  const input = cappedJson(event.input, ITEM_CAPS.inputBytes);
  const result =
    event.result === null || event.result === undefined ? null : cappedJson(event.result, ITEM_CAPS.resultBytes);
  return validated(
    toolItemSchema,
    {
      pk: runKey(event.runId).pk,
      sk: sortKey,
      entity: 'tool_invocation',
      schema_version: SCHEMA_VERSION,
      ttl: ttlFor(nowMs, retentionDays),
      run_id: event.runId,
      tool_call_id: truncateChars(event.toolCallId, ITEM_CAPS.toolCallIdChars),
      tool_name: event.toolName,
      step_number: event.stepNumber,
      disposition: event.disposition,
      status: event.status,
      empty: event.empty,
      code: event.code,
      input: input.text,
      input_truncated: input.truncated,
      observation: JSON.stringify(event.observation),
      result: result?.text ?? null,
      result_truncated: result?.truncated ?? false,
      error_detail: event.errorDetail === null ? null : truncateChars(event.errorDetail, ITEM_CAPS.errorDetailChars),
      started_at: iso(event.startedAt),
      ended_at: iso(event.endedAt),
    },
    'tool_invocation',
  ) as Item;
}

function cappedJson(value: unknown, maxBytes: number): { text: string; truncated: boolean } {
  let text: string;
  try {
    text = JSON.stringify(value) ?? 'null';
  } catch {
    text = '"<unserializable>"';
  }
  if (Buffer.byteLength(text) <= maxBytes) return { text, truncated: false };
  return {
    text: Buffer.from(text)
      .subarray(0, maxBytes)
      .toString('utf8')
      .replace(/\uFFFD$/, ''),
    truncated: true,
  };
}

/** Reads one stored item back into its typed record, validating it against its schema. */
export function recordOf(item: Record<string, unknown>): RunRecord {
  switch (item.entity) {
    case 'run':
      return runOf(item);
    case 'agent_step': {
      const step = validated(stepItemSchema, item, 'agent_step');
      return {
        entity: 'agent_step',
        runId: step.run_id,
        stepNumber: step.step_number,
        modelId: step.model_id,
        finishReason: step.finish_reason,
        inputTokens: step.input_tokens,
        outputTokens: step.output_tokens,
        reasoningTokens: step.reasoning_tokens,
        cachedInputTokens: step.cached_input_tokens,
        reasoningAvailable: step.reasoning_available,
        contentSource: step.content_source,
        contentBytes: step.content_bytes,
        toolCalls: step.tool_calls.map((call) => ({ toolCallId: call.tool_call_id, toolName: call.tool_name })),
        toolCallsTotal: step.tool_calls_total ?? step.tool_calls.length,
        startedAt: step.started_at,
        endedAt: step.ended_at,
      } satisfies StoredStep;
    }
    case 'tool_invocation': {
      const tool = validated(toolItemSchema, item, 'tool_invocation');
      return {
        entity: 'tool_invocation',
        runId: tool.run_id,
        toolCallId: tool.tool_call_id,
        toolName: tool.tool_name,
        stepNumber: tool.step_number,
        disposition: tool.disposition,
        status: tool.status,
        empty: tool.empty,
        code: tool.code,
        input: parseJsonText(tool.input, tool.input_truncated),
        inputTruncated: tool.input_truncated,
        observation: JSON.parse(tool.observation),
        result: tool.result === null ? null : parseJsonText(tool.result, tool.result_truncated),
        resultTruncated: tool.result_truncated,
        errorDetail: tool.error_detail,
        startedAt: tool.started_at,
        endedAt: tool.ended_at,
      } satisfies StoredToolInvocation;
    }
    default:
      throw new RunStoreError('CORRUPT_ITEM', 'item of an unknown entity');
  }
}

/** Reads one reasoning item back, validating it against its schema. */
export function reasoningOf(item: Record<string, unknown>): StoredReasoning {
  const audit = validated(reasoningItemSchema, item, 'agent_reasoning_audit');
  return {
    entity: 'agent_reasoning_audit',
    runId: audit.run_id,
    stepNumber: audit.step_number,
    reasoningContent: audit.reasoning_content,
    assistantText: audit.assistant_text,
    contentSource: audit.content_source,
    contentBytes: audit.content_bytes,
  };
}

function parseJsonText(text: string, truncated: boolean): unknown {
  return truncated ? text : JSON.parse(text);
}

export function runOf(item: Record<string, unknown>): StoredRun {
  const run = validated(runItemSchema, item, 'run');
  return {
    entity: 'run',
    runId: run.run_id,
    sessionId: run.session_id,
    enterpriseId: run.enterprise_id,
    kind: run.kind,
    status: run.status,
    query: run.query,
    continueSession: run.continue_session ?? false,
    stopReason: run.stop_reason,
    errorCode: run.error_code,
    usage: run.usage,
    progress: run.progress,
    draft: run.draft,
    conclusion: run.conclusion,
    publishedResult: run.published_result,
    report: run.report ?? null,
    limits: run.limits ?? null,
    deadlineAt: run.deadline_at ?? null,
    createdAt: run.created_at,
    endedAt: run.ended_at,
  };
}
