import type { JSONValue } from '@ai-sdk/provider';
import type { ModelMessage, ToolResultPart } from 'ai';
import { utf8Bytes } from '../run/utf8.ts';

/**
 * When the observations the history still holds in full pass this many bytes, the older ones are compacted. NOTE:
 * about three full 8 KB observations: a run whose observations are small (the demo, most real runs) never compacts,
 * and every one of its requests stays a continuation of the one before.
 */
export const COMPACT_OBSERVATIONS_AT_BYTES = 24 * 1024;

/** Observations kept in full when the history is compacted: the newest, which the model has not judged yet. */
const OBSERVATIONS_KEPT_IN_FULL = 1;

/** What the model reads in place of a compacted observation's data (its tool_call_id stays citable). */
export const COMPACTED_OBSERVATION_NOTE =
  '此观察的数据已从对话中压缩（你在之前的轮次已读过并评价过它）；完整数据保存在审计中，仍可按 tool_call_id 引用。';

/**
 * Keeps a run's input from growing with the square of its tool calls (issue #37): every observation is re-sent in
 * every later round, so twelve 8 KB observations cost ~180k input tokens. Once the full observations in the history
 * pass {@link COMPACT_OBSERVATIONS_AT_BYTES}, every one but the newest {@link OBSERVATIONS_KEPT_IN_FULL} — all of them
 * already judged by the model's next call — is replaced by a stub: its `tool_call_id`, `evidence_status`, how many
 * rows it held, and {@link COMPACTED_OBSERVATION_NOTE}.
 * NOTE: prompt cache. A compacted observation stays compacted (the set is the run's), so a compaction rewrites the
 * history once, at that round, and the rounds after it are continuations again; it happens only every few rounds of a
 * run with large observations. NOTE: nothing is hidden from the guards: the audit, the EvidenceGuard and the
 * SemanticGuard's judge read the observations as recorded, never this history.
 */
export function createObservationCompactor() {
  const compacted = new Set<string>();
  return {
    /** The history as the model reads it this round; the same array when nothing is compacted. */
    compact(messages: ModelMessage[]): ModelMessage[] {
      const results = toolResults(messages);
      const full = results.filter((result) => !compacted.has(result.id));
      const fullBytes = full.reduce((sum, result) => sum + result.bytes, 0);
      if (fullBytes > COMPACT_OBSERVATIONS_AT_BYTES) {
        // NOTE: all at once, not just enough to get under the bound: a compaction rewrites the history (the prompt
        // cache is cut there), so it must buy several rounds before the next one, not one (BENCHMARKS.md at 911af2a).
        for (const result of full.slice(0, Math.max(0, full.length - OBSERVATIONS_KEPT_IN_FULL))) {
          compacted.add(result.id);
        }
      }
      if (compacted.size === 0) return messages;
      return messages.map((message) => {
        if (message.role !== 'tool') return message;
        let changed = false;
        const content = message.content.map((part) => {
          if (part.type !== 'tool-result' || part.output.type !== 'json' || !compacted.has(part.toolCallId))
            return part;
          changed = true;
          return {
            ...part,
            output: { type: 'json' as const, value: stub(part.output.value) },
          } satisfies ToolResultPart;
        });
        return changed ? { ...message, content } : message;
      });
    },
  };
}

interface ToolResultSize {
  id: string;
  bytes: number;
}

function toolResults(messages: readonly ModelMessage[]): ToolResultSize[] {
  const results: ToolResultSize[] = [];
  for (const message of messages) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type !== 'tool-result' || part.output.type !== 'json') continue;
      const value = part.output.value as { data?: unknown } | null;
      // NOTE: only observations with data weigh anything; a refusal or an error is a short fixed text.
      if (value === null || typeof value !== 'object' || value.data === undefined) continue;
      results.push({ id: part.toolCallId, bytes: utf8Bytes(JSON.stringify(value)) });
    }
  }
  return results;
}

/** NOTE: idempotent: the history a round is given may already hold this run's stubs (the SDK keeps what it sent). */
function stub(value: JSONValue): JSONValue {
  const observation = value as {
    tool_call_id?: JSONValue;
    evidence_status?: JSONValue;
    data?: unknown;
    compacted?: JSONValue;
  };
  if (observation.compacted === true) return value;
  const data = observation.data as
    | { rows?: unknown[]; lines?: unknown[]; hits?: unknown[]; matched?: unknown }
    | undefined;
  const rows = data?.rows ?? data?.lines ?? data?.hits;
  return {
    tool_call_id: observation.tool_call_id ?? null,
    evidence_status: observation.evidence_status ?? null,
    compacted: true,
    ...(Array.isArray(rows) ? { rows_seen: rows.length } : {}),
    ...(typeof data?.matched === 'number' ? { matched: data.matched } : {}),
    message: COMPACTED_OBSERVATION_NOTE,
  };
}
