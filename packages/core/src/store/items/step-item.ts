/**
 * The step item (`RUN#<runId>` / `STEP#0001`, …): one model round's counters and the tool calls it asked for, in the
 * run's partition. NOTE: it carries no text of the model's; the round's texts are its reasoning item's.
 */
import * as v from 'valibot';
import { truncateChars, utf8Bytes } from '../../run/utf8.ts';
import { MODEL_ROLES, type ModelStepEvent } from '../audit-hook.ts';
import type { StoredStep } from '../run-store.ts';
import { ITEM_BASE_ENTRIES, ITEM_CAPS, type Item, iso, SCHEMA_VERSION, ttlFor, validatedItem } from './item.ts';
import { runKey } from './run-item.ts';

/** The sort key of a round's items: its step item in the run's partition, its reasoning item in the reasoning's. */
export const stepSortKey = (stepNumber: number) => `STEP#${String(stepNumber).padStart(4, '0')}`;
export const STEP_SORT_KEY_PATTERN = /STEP#\d{4}/;

export const contentSourceSchema = v.picklist([
  'PROVIDER_REASONING+ASSISTANT_TEXT',
  'PROVIDER_REASONING',
  'ASSISTANT_TEXT',
  'NONE',
]);

const stepItemSchema = v.object({
  ...ITEM_BASE_ENTRIES,
  entity: v.literal('agent_step'),
  run_id: v.string(),
  step_number: v.number(),
  /** Absent on the agent's rounds (and on every step stored before the SemanticGuard): those are AGENT. */
  role: v.optional(v.picklist(MODEL_ROLES)),
  model_id: v.string(),
  finish_reason: v.string(),
  input_tokens: v.number(),
  output_tokens: v.number(),
  reasoning_tokens: v.nullable(v.number()),
  cached_input_tokens: v.nullable(v.number()),
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

/** A round's two texts cut at their cap, and their UTF-8 bytes after the cut (its step and reasoning items hold it). */
export interface CappedModelTexts {
  reasoning: string;
  assistant: string;
  contentBytes: number;
}

export function capModelTexts(event: ModelStepEvent): CappedModelTexts {
  const reasoning = truncateChars(event.reasoningContent, ITEM_CAPS.reasoningChars);
  const assistant = truncateChars(event.assistantText, ITEM_CAPS.reasoningChars);
  return { reasoning, assistant, contentBytes: utf8Bytes(reasoning) + utf8Bytes(assistant) };
}

/** The round's step item, kept `retentionDays`; what a provider names in it (model id, finish reason) is bounded. */
export function stepItem(event: ModelStepEvent, texts: CappedModelTexts, nowMs: number, retentionDays: number): Item {
  return validatedItem(
    stepItemSchema,
    {
      pk: runKey(event.runId).pk,
      sk: stepSortKey(event.stepNumber),
      entity: 'agent_step',
      schema_version: SCHEMA_VERSION,
      ttl: ttlFor(nowMs, retentionDays),
      run_id: event.runId,
      step_number: event.stepNumber,
      // NOTE: only the judge's call is marked; an agent's round is stored exactly as before the SemanticGuard existed.
      ...(event.role === 'JUDGE' ? { role: 'JUDGE' } : {}),
      model_id: truncateChars(event.modelId, 200),
      finish_reason: truncateChars(event.finishReason, 64),
      input_tokens: event.usage.inputTokens,
      output_tokens: event.usage.outputTokens,
      reasoning_tokens: event.usage.reasoningTokens ?? null,
      cached_input_tokens: event.usage.cachedInputTokens ?? null,
      usage_estimated: event.usageEstimated ?? false,
      reasoning_available: texts.reasoning.length > 0,
      content_source: event.contentSource,
      content_bytes: texts.contentBytes,
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
}

/** Reads one step item back, validating it against its schema. */
export function stepOf(item: Record<string, unknown>): StoredStep {
  const step = validatedItem(stepItemSchema, item, 'agent_step');
  return {
    entity: 'agent_step',
    runId: step.run_id,
    stepNumber: step.step_number,
    role: step.role ?? 'AGENT',
    modelId: step.model_id,
    finishReason: step.finish_reason,
    inputTokens: step.input_tokens,
    outputTokens: step.output_tokens,
    reasoningTokens: step.reasoning_tokens,
    cachedInputTokens: step.cached_input_tokens,
    usageEstimated: step.usage_estimated ?? false,
    reasoningAvailable: step.reasoning_available,
    contentSource: step.content_source,
    contentBytes: step.content_bytes,
    toolCalls: step.tool_calls.map((call) => ({ toolCallId: call.tool_call_id, toolName: call.tool_name })),
    toolCallsTotal: step.tool_calls_total ?? step.tool_calls.length,
    startedAt: step.started_at,
    endedAt: step.ended_at,
  };
}
