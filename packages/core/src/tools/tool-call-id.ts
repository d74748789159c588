import { isToolCallId, MAX_TOOL_CALL_ID_CHARS } from '../run/ids.ts';
import { truncateChars } from '../run/utf8.ts';

declare const checkedToolCallId: unique symbol;

/**
 * A model-chosen tool call id that passed {@link parseToolCallId}. NOTE: only that function makes one, so code that
 * takes a `ToolCallId` (the progress protocol, the adapter request) trusts its format and never checks it again.
 */
export type ToolCallId = string & { readonly [checkedToolCallId]: true };

/**
 * The verdict on a model-chosen id. Either way `id` is safe to carry on (into an observation, the audit, the next
 * prompt): the checked id itself, or a copy of a refused one cut to {@link MAX_TOOL_CALL_ID_CHARS}.
 */
export type ToolCallIdCheck = { ok: true; id: ToolCallId } | { ok: false; id: string };

/**
 * Checks a tool call id where it enters the harness (the model's tool call), once: the id is the model's choice, so
 * one that is too long or holds a character that could end up in a storage key, a log line or a prompt as something
 * else is refused, and only a bounded copy of it travels on. NOTE: this is the harness's one check and one cut of a
 * tool call id; everything downstream takes the value this returns.
 */
export function parseToolCallId(raw: unknown): ToolCallIdCheck {
  if (isToolCallId(raw)) return { ok: true, id: raw as ToolCallId };
  return { ok: false, id: truncateChars(String(raw), MAX_TOOL_CALL_ID_CHARS) };
}
