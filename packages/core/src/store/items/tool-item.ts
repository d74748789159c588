/**
 * The tool invocation item (`RUN#<runId>` / `TOOL#<toolCallId>`): one tool call that reached the tool boundary,
 * whatever became of it, with exactly the observation the model saw and the adapter's data (capped).
 */
import * as v from 'valibot';
import { isToolCallId, TOOL_CALL_ID_PATTERN } from '../../run/ids.ts';
import { truncateChars, truncateUtf8, utf8Bytes } from '../../run/utf8.ts';
import { TOOL_NAMES } from '../../tools/evidence-adapter.ts';
import type { ToolInvocationEvent } from '../audit-hook.ts';
import type { StoredToolInvocation } from '../run-store.ts';
import {
  ITEM_BASE_ENTRIES,
  ITEM_CAPS,
  type Item,
  iso,
  SCHEMA_VERSION,
  ttlFor,
  validatedItem,
  wellFormed,
} from './item.ts';
import { runKey } from './run-item.ts';

export const toolSortKey = (toolCallId: string) => `TOOL#${toolCallId}`;

/**
 * The sort keys of tool invocation items, as a cursor may name them. NOTE: built from the tool call id pattern the
 * harness accepts (its anchors dropped), never written out a second time: a key can only ever hold an id the harness
 * would have let through.
 */
export const TOOL_SORT_KEY_PATTERNS = [
  new RegExp(`TOOL#${TOOL_CALL_ID_PATTERN.source.replace(/^\^(.*)\$$/, '$1')}(#REUSED#\\d{3})?`),
  /TOOLID#INVALID#\d{4}/,
];

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

const toolItemSchema = v.object({
  ...ITEM_BASE_ENTRIES,
  entity: v.literal('tool_invocation'),
  run_id: v.string(),
  tool_call_id: v.string(),
  tool_name: v.picklist(TOOL_NAMES),
  step_number: v.number(),
  disposition: v.picklist(['EXECUTED', 'REJECTED', 'STOPPED']),
  status: v.nullable(v.picklist(['READY', 'ERROR'])),
  empty: v.boolean(),
  code: v.nullable(v.string()),
  input: v.string(),
  input_truncated: v.boolean(),
  observation: v.string(),
  result: v.nullable(v.string()),
  result_truncated: v.boolean(),
  error_detail: v.nullable(v.pipe(v.string(), v.maxLength(ITEM_CAPS.errorDetailChars))),
  started_at: v.string(),
  ended_at: v.string(),
});

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
  return validatedItem(
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

/** Reads one tool invocation item back, validating it against its schema; a cut text reads back as its text. */
export function toolInvocationOf(item: Record<string, unknown>): StoredToolInvocation {
  const tool = validatedItem(toolItemSchema, item, 'tool_invocation');
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
  };
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

function parseJsonText(text: string, truncated: boolean): unknown {
  return truncated ? text : JSON.parse(text);
}

/**
 * The observation the model saw, parsed from its stored JSON text. NOTE: the item is written whole (at most 8 KiB),
 * so a text that does not parse was cut or damaged outside this code; it is read back as its text rather than
 * failing the whole page of the run's records with a parser's exception.
 */
function parseObservationText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
