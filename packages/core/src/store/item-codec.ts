/**
 * The codec between the store's records and the table's items, both ways: each write builds an item from a record
 * (capped, validated before it is sent) and each read validates an item and maps it back. NOTE: longer than ~300 lines
 * on purpose: every snake_case storage name and its camelCase record name sit in this one file, so a field renamed in
 * one direction cannot be forgotten in the other.
 */
import * as v from 'valibot';
import { issuePaths, RunStoreError } from '../errors.ts';
import { modelFailureReport } from '../run/model-failure.ts';
import type { ProcessScorecard } from '../run/process-scores.ts';
import type { ProgressSnapshot } from '../run/progress.ts';
import { truncateChars, truncateUtf8, utf8Bytes } from '../run/utf8.ts';
import type { ModelStepEvent, PseudonymBatchEvent, ToolInvocationEvent } from './audit-hook.ts';
import {
  pseudonymPartitionKey,
  pseudonymSortKey,
  reasoningPartitionKey,
  runKey,
  sessionKey,
  stepSortKey,
  toolSortKey,
} from './item-keys.ts';
import {
  completionSchema,
  ITEM_CAPS,
  type Item,
  liveProgressSchema,
  pseudonymItemSchema,
  reasoningItemSchema,
  runItemSchema,
  SCHEMA_VERSION,
  stepItemSchema,
  toolItemSchema,
} from './item-schemas.ts';
import type {
  LiveProgress,
  RunOutcome,
  RunRecord,
  StartRunInput,
  StoredPseudonymBatch,
  StoredReasoning,
  StoredRun,
  StoredStep,
  StoredToolInvocation,
} from './run-store.ts';

const iso = (epochMs: number) => new Date(epochMs).toISOString();

function validated<T extends v.GenericSchema>(schema: T, item: unknown, what: string): v.InferOutput<T> {
  const result = v.safeParse(schema, wellFormed(item));
  if (!result.success) {
    const [path] = issuePaths(result.issues, 1);
    throw new RunStoreError('CORRUPT_ITEM', `${what} item fails its schema at ${path}`);
  }
  return result.output;
}

/**
 * The value with every string made well-formed UTF-16. NOTE: a model can write lone surrogates (`"\ud800"` in JSON)
 * into its reasoning, a tool call id or the Draft; they have no UTF-8 form, and DynamoDB may refuse the whole write.
 * Each lone surrogate becomes U+FFFD; everything else is kept exactly.
 */
export function wellFormed(value: unknown): unknown {
  if (typeof value === 'string') return value.isWellFormed() ? value : value.toWellFormed();
  if (Array.isArray(value)) return value.map(wellFormed);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, entry]) => [wellFormed(key), wellFormed(entry)]));
  }
  return value;
}

export function ttlFor(nowMs: number, retentionDays: number): number {
  return Math.floor(nowMs / 1_000) + retentionDays * 86_400;
}

export function newRunItem(
  input: StartRunInput,
  nowMs: number,
  retentionDays: number,
  status: 'QUEUED' | 'RUNNING' = 'RUNNING',
  deadlineAt?: number,
  executionArn?: string,
): Item {
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
      status,
      query: input.query,
      continue_session: input.continueSession,
      ...(input.trigger === undefined
        ? {}
        : {
            trigger: {
              source: input.trigger.source,
              incident_key: input.trigger.incidentKey,
              event_id: input.trigger.eventId,
              title: input.trigger.title,
              started_at: input.trigger.startedAt,
            },
          }),
      ...(input.window === undefined ? {} : { window: { from: input.window.from, to: input.window.to } }),
      stop_reason: null,
      error_code: null,
      usage: null,
      progress: null,
      draft: null,
      conclusion: null,
      published_result: null,
      created_at: createdAt,
      ended_at: null,
      ...(deadlineAt === undefined ? {} : { deadline_at: iso(deadlineAt) }),
      ...(executionArn === undefined ? {} : { execution_arn: executionArn }),
      // NOTE: a run started RUNNING (a batch item, a direct invocation) shows its first sign of life at once.
      ...(status === 'RUNNING' ? { heartbeat_at: createdAt } : {}),
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

/** The attributes `updateProgress` sets on a RUNNING run, validated like a completion's; a progress write is a heartbeat. */
export function progressAttributes(live: LiveProgress, nowMs: number): Record<string, unknown> {
  const attributes = JSON.parse(
    JSON.stringify({
      usage: live.usage,
      progress: plainProgress(live.progress),
      ...(live.deadlineAt === undefined ? {} : { deadline_at: iso(live.deadlineAt) }),
    }),
  );
  return { ...validated(liveProgressSchema, attributes, 'run progress'), heartbeat_at: iso(nowMs) };
}

/** The attributes `completeRun` sets, validated before they are sent (plain JSON: no class instances, no undefined). */
export function completionAttributes(outcome: RunOutcome, nowMs: number): Record<string, unknown> {
  const attributes = JSON.parse(
    JSON.stringify({
      status: outcome.status,
      stop_reason: outcome.stopReason,
      collection_stop_reason: outcome.collectionStopReason ?? null,
      error_code: outcome.errorCode,
      model_failure:
        outcome.modelFailure === undefined || outcome.modelFailure === null
          ? null
          : modelFailureReport(outcome.modelFailure),
      usage: outcome.usage,
      progress: outcome.progress === null ? null : plainProgress(outcome.progress),
      draft: outcome.draft,
      conclusion: outcome.publishedResult?.draft.conclusion ?? null,
      published_result: outcome.publishedResult,
      report: outcome.report ?? null,
      limits: outcome.limits ?? null,
      deadline_at: outcome.deadlineAt === undefined || outcome.deadlineAt === null ? null : iso(outcome.deadlineAt),
      masking: outcome.masking ?? null,
      process_scorecard: outcome.processScorecard ?? null,
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
    // NOTE: only the judge's call is marked; an agent's round is stored exactly as before the SemanticGuard existed.
    ...(event.role === 'JUDGE' ? { role: 'JUDGE' } : {}),
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
      usage_estimated: event.usageEstimated ?? false,
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
  const input = cappedJson(wellFormed(event.input), ITEM_CAPS.inputBytes);
  const result =
    event.result === null || event.result === undefined
      ? null
      : cappedJson(wellFormed(event.result), ITEM_CAPS.resultBytes);
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
      observation: JSON.stringify(wellFormed(event.observation)),
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
  if (utf8Bytes(text) <= maxBytes) return { text, truncated: false };
  return { text: truncateUtf8(text, maxBytes), truncated: true };
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
        observation: parseObservationText(tool.observation),
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

/** A sealed batch of the run's pseudonym map, in its own partition, kept `pseudonymRetentionDays`. */
export function pseudonymItem(event: PseudonymBatchEvent, nowMs: number, retentionDays: number): Item {
  return validated(
    pseudonymItemSchema,
    {
      pk: pseudonymPartitionKey(event.runId),
      sk: pseudonymSortKey(event.sequence),
      entity: 'pseudonym_map',
      schema_version: SCHEMA_VERSION,
      ttl: ttlFor(nowMs, retentionDays),
      run_id: event.runId,
      sequence: event.sequence,
      count: event.count,
      iv: event.sealed.iv,
      tag: event.sealed.tag,
      ciphertext: event.sealed.ciphertext,
    },
    'pseudonym_map',
  ) as Item;
}

/** Reads one pseudonym batch back (still sealed), validating it against its schema. */
export function pseudonymBatchOf(item: Record<string, unknown>): StoredPseudonymBatch {
  const batch = validated(pseudonymItemSchema, item, 'pseudonym_map');
  return {
    entity: 'pseudonym_map',
    runId: batch.run_id,
    sequence: batch.sequence,
    count: batch.count,
    sealed: { iv: batch.iv, tag: batch.tag, ciphertext: batch.ciphertext },
  };
}

/** Reads one reasoning item back, validating it against its schema. */
export function reasoningOf(item: Record<string, unknown>): StoredReasoning {
  const audit = validated(reasoningItemSchema, item, 'agent_reasoning_audit');
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

function parseJsonText(text: string, truncated: boolean): unknown {
  return truncated ? text : JSON.parse(text);
}

/**
 * The observation the model saw, parsed from its stored JSON text. NOTE: the codec writes it whole (at most 8 KiB), so
 * a text that does not parse was cut or damaged outside this code; it is read back as its text rather than failing
 * the whole page of the run's records with a parser's exception.
 */
function parseObservationText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
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
    trigger:
      run.trigger === undefined || run.trigger === null
        ? null
        : {
            source: run.trigger.source,
            incidentKey: run.trigger.incident_key,
            eventId: run.trigger.event_id,
            title: run.trigger.title,
            startedAt: run.trigger.started_at,
          },
    window: run.window ?? null,
    stopReason: run.stop_reason,
    collectionStopReason: run.collection_stop_reason ?? null,
    errorCode: run.error_code,
    modelFailure:
      run.model_failure === undefined || run.model_failure === null
        ? null
        : {
            kind: run.model_failure.kind,
            httpStatus: run.model_failure.http_status,
            errorClass: run.model_failure.error_class,
            networkCode: run.model_failure.network_code,
          },
    usage: run.usage,
    progress: run.progress,
    draft: run.draft,
    conclusion: run.conclusion,
    publishedResult: run.published_result,
    report: run.report ?? null,
    cancelRequestedAt: run.cancel_requested_at ?? null,
    limits: run.limits ?? null,
    deadlineAt: run.deadline_at ?? null,
    masking: run.masking ?? null,
    executionArn: run.execution_arn ?? null,
    heartbeatAt: run.heartbeat_at ?? null,
    processScorecard: (run.process_scorecard ?? null) satisfies ProcessScorecard | null,
    createdAt: run.created_at,
    endedAt: run.ended_at,
  };
}
