/**
 * The reasoning item (`REASONING#<runId>` / `STEP#0001`, …): a model round's raw reasoning and assistant text, apart
 * from the step item that counts them, in a partition of its own with a retention of its own.
 */
import * as v from 'valibot';
import { MODEL_ROLES, type ModelStepEvent } from '../audit-hook.ts';
import type { StoredReasoning } from '../run-store.ts';
import { ITEM_BASE_ENTRIES, ITEM_CAPS, type Item, SCHEMA_VERSION, ttlFor, validatedItem } from './item.ts';
import { type CappedModelTexts, contentSourceSchema, stepSortKey } from './step-item.ts';

/**
 * The partition of a run's raw reasoning. NOTE: it is its own partition key so that IAM can keep every role but the
 * reasoning reader away from it with a `dynamodb:LeadingKeys` condition (which matches partition keys only).
 */
export const reasoningPartitionKey = (runId: string) => `REASONING#${runId}`;
/** The sort key of reasoning items written in the run's own partition, before it had one of its own (never listed). */
export const LEGACY_REASONING_SORT_KEY_PATTERN = /REASONING#\d{4}/;

const reasoningItemSchema = v.object({
  ...ITEM_BASE_ENTRIES,
  entity: v.literal('agent_reasoning_audit'),
  run_id: v.string(),
  step_number: v.number(),
  role: v.optional(v.picklist(MODEL_ROLES)),
  reasoning_content: v.pipe(v.string(), v.maxLength(ITEM_CAPS.reasoningChars)),
  assistant_text: v.pipe(v.string(), v.maxLength(ITEM_CAPS.reasoningChars)),
  content_source: contentSourceSchema,
  content_bytes: v.number(),
});

/** The round's reasoning item, kept `retentionDays` (the reasoning's own retention). */
export function reasoningItem(
  event: ModelStepEvent,
  texts: CappedModelTexts,
  nowMs: number,
  retentionDays: number,
): Item {
  return validatedItem(
    reasoningItemSchema,
    {
      pk: reasoningPartitionKey(event.runId),
      sk: stepSortKey(event.stepNumber),
      entity: 'agent_reasoning_audit',
      schema_version: SCHEMA_VERSION,
      ttl: ttlFor(nowMs, retentionDays),
      run_id: event.runId,
      step_number: event.stepNumber,
      // NOTE: only the judge's call is marked; an agent's round is stored exactly as before the SemanticGuard existed.
      ...(event.role === 'JUDGE' ? { role: 'JUDGE' } : {}),
      reasoning_content: texts.reasoning,
      assistant_text: texts.assistant,
      content_source: event.contentSource,
      content_bytes: texts.contentBytes,
    },
    'agent_reasoning_audit',
  ) as Item;
}

/** Reads one reasoning item back, validating it against its schema. */
export function reasoningOf(item: Record<string, unknown>): StoredReasoning {
  const audit = validatedItem(reasoningItemSchema, item, 'agent_reasoning_audit');
  return {
    entity: 'agent_reasoning_audit',
    runId: audit.run_id,
    stepNumber: audit.step_number,
    role: audit.role ?? 'AGENT',
    reasoningContent: audit.reasoning_content,
    assistantText: audit.assistant_text,
    contentSource: audit.content_source,
    contentBytes: audit.content_bytes,
  };
}
