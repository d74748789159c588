import * as v from 'valibot';
import { diagnosisDraftSchema } from '../draft/diagnosis-draft.ts';
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
  thoughtChars: 2_000,
  reasoningChars: 32_000,
});

export type Item = Record<string, unknown> & { pk: string; sk: string };

export const runKey = (runId: string) => ({ pk: `RUN#${runId}`, sk: 'RUN' });
export const stepSortKey = (stepNumber: number) => `STEP#${String(stepNumber).padStart(4, '0')}`;
export const reasoningSortKey = (stepNumber: number) => `REASONING#${String(stepNumber).padStart(4, '0')}`;
export const toolSortKey = (toolCallId: string) => `TOOL#${toolCallId}`;

/**
 * The sort keys of tool invocation items. The canonical record of an id is `TOOL#<id>`; the harness's rejection of a
 * reused id is kept beside it as `TOOL#<id>#REUSED#001`, … so the first record stays the canonical one.
 */
export function createToolSortKeys() {
  const reuseCounts = new Map<string, number>();
  return (event: { runId: string; toolCallId: string; code: string | null }): string => {
    const key = toolSortKey(event.toolCallId);
    if (event.code !== 'DUPLICATE_TOOL_CALL_ID') return key;
    const reuse = (reuseCounts.get(`${event.runId}|${event.toolCallId}`) ?? 0) + 1;
    reuseCounts.set(`${event.runId}|${event.toolCallId}`, reuse);
    return `${key}#REUSED#${String(reuse).padStart(3, '0')}`;
  };
}
export const sessionKey = (sessionId: string) => `SESSION#${sessionId}`;

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
  thought: v.pipe(v.string(), v.maxLength(ITEM_CAPS.thoughtChars)),
  tool_calls: v.array(v.object({ tool_call_id: v.string(), tool_name: v.string() })),
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
  return validated(
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
      stop_reason: null,
      error_code: null,
      usage: null,
      progress: null,
      draft: null,
      conclusion: null,
      published_result: null,
      created_at: createdAt,
      ended_at: null,
      gsi1pk: sessionKey(input.sessionId),
      gsi1sk: `${createdAt}#${input.runId}`,
    },
    'run',
  ) as Item;
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
  return validated(completionSchema, attributes, 'run completion');
}

function plainProgress(progress: ProgressSnapshot) {
  return { ...progress, checks: progress.checks.map((check) => ({ ...check })) };
}

export function stepItems(event: ModelStepEvent, nowMs: number, retentionDays: number): [Item, Item] {
  const common = {
    pk: runKey(event.runId).pk,
    schema_version: SCHEMA_VERSION,
    ttl: ttlFor(nowMs, retentionDays),
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
      sk: stepSortKey(event.stepNumber),
      entity: 'agent_step',
      model_id: event.modelId,
      finish_reason: event.finishReason,
      input_tokens: event.usage.inputTokens,
      output_tokens: event.usage.outputTokens,
      reasoning_tokens: event.usage.reasoningTokens ?? null,
      cached_input_tokens: event.usage.cachedInputTokens ?? null,
      reasoning_available: reasoning.length > 0,
      content_source: event.contentSource,
      content_bytes: contentBytes,
      thought: truncateChars(reasoning.length > 0 ? reasoning : assistant, ITEM_CAPS.thoughtChars),
      tool_calls: event.toolCalls.map((call) => ({ tool_call_id: call.toolCallId, tool_name: call.toolName })),
      started_at: iso(event.startedAt),
      ended_at: iso(event.endedAt),
    },
    'agent_step',
  ) as Item;
  const audit = validated(
    reasoningItemSchema,
    {
      ...common,
      sk: reasoningSortKey(event.stepNumber),
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
      tool_call_id: event.toolCallId,
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
        thought: step.thought,
        toolCalls: step.tool_calls.map((call) => ({ toolCallId: call.tool_call_id, toolName: call.tool_name })),
        startedAt: step.started_at,
        endedAt: step.ended_at,
      } satisfies StoredStep;
    }
    case 'agent_reasoning_audit': {
      const audit = validated(reasoningItemSchema, item, 'agent_reasoning_audit');
      return {
        entity: 'agent_reasoning_audit',
        runId: audit.run_id,
        stepNumber: audit.step_number,
        reasoningContent: audit.reasoning_content,
        assistantText: audit.assistant_text,
        contentSource: audit.content_source,
        contentBytes: audit.content_bytes,
      } satisfies StoredReasoning;
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
