import type { JSONValue } from '@ai-sdk/provider';
import type { AssistantModelMessage, ModelMessage, ToolModelMessage, ToolResultPart } from 'ai';
import { utf8Bytes } from '../run/utf8.ts';

/**
 * When the history a round would re-send (every message after the instructions: the prompt, the tool calls, their
 * observations) passes this many UTF-8 bytes, the judged rounds are folded into the call record. NOTE: about 1,700
 * of DeepSeek's tokens of JSON: with the instructions and tool schemas (about 2,100) a request stays near 3–4k tokens
 * whatever the observations' size, so a run's input grows linearly with its tool calls, not with their square. The
 * bound is what the newest rounds may hold in full: with 1 KB observations (about 500 tokens each) one or two judged
 * rounds stay whole beside the newest, so the Draft's round still sees the last observations it judged; a lower bound
 * folds after every judged round and leaves the Draft's round the newest alone (6 KB let three stay: twenty such
 * calls sent 68k tokens, this bound 64k; BENCHMARKS.md, "Input growth with tool calls").
 */
export const COMPACT_HISTORY_AT_BYTES = 5 * 1024;

/** The `evidence_status` of the call record (the first call's result once the history is folded). */
export const CALL_RECORD_STATUS = 'COMPACTED';

/** What the model reads at the head of the call record. */
export const CALL_RECORD_NOTE =
  '较早的调用（你已读过并评价过结果）：观察数据已移出对话，仍可按 ref 引用；tool 为 null 即同上一行；同一工具之后的调用，input 只列出与它第一次调用不同的字段（null 为未填）。';

/** The call record's columns, said once: each entry of `calls` is a row of them. */
const CALL_RECORD_COLUMNS = ['ref', 'tool', 'input', 'evidence_status', 'rows'] as const;

/** A call's input larger than this is listed without it (a refused call's input may be anything the model wrote). */
export const CALL_RECORD_MAX_INPUT_BYTES = 1024;

/**
 * One folded call as the record lists it, a row of {@link CALL_RECORD_COLUMNS}: what was asked and what came back
 * (its row count, null for a result without rows), never the data itself; and the number the Draft cites it by, as
 * its observation showed it (null when it showed none).
 */
type CallRecordEntry = [
  ref: number | null,
  tool: string | null,
  input: JSONValue,
  evidenceStatus: JSONValue,
  rows: number | null,
];

/** A tool round: the assistant message that asked for calls and the tool messages answering them. */
interface ToolRound {
  assistant: AssistantModelMessage;
  results: ModelMessage[];
}

/**
 * Keeps a run's input linear in its tool calls at every observation size: every message is re-sent in every later
 * round, so without this the input grows with the square of the calls (twenty 1 KB observations: ~157k tokens).
 * Once the history a round would send passes {@link COMPACT_HISTORY_AT_BYTES}, every tool round but the first and the
 * newest is dropped, and the first round's result becomes the call record ({@link CALL_RECORD_STATUS}): per folded
 * call its `ref` (still citable), tool, business input (so the model does not ask again), `evidence_status` and row
 * count, as a row of {@link CALL_RECORD_COLUMNS} (the keys said once, not once a call; a tool's later calls list only
 * the input fields that differ from its first call's, see {@link againstFirstCall}). No `tool_call_id`: the model
 * names a call by id only to judge the newest one, which is never folded, and cites every call by its `ref`.
 * The newest round (its observation not yet judged by the model) stays as sent.
 * NOTE: prompt cache. The first round's call stays in place, so a folded request still begins with the first
 * request's whole input (the instructions, tools and prompt: a cache unit of the provider's); the record only grows
 * at its end (`calls` is its last field), so a fold keeps the prefix up to the calls recorded before.
 * NOTE: the SDK keeps what a round was sent, so the history given here already holds this run's record: it is read
 * back from there and extended, never rebuilt. NOTE: nothing is hidden from the guards: the audit, the EvidenceGuard
 * and the SemanticGuard's judge read the observations as recorded, never this history. Written by the harness, not by
 * a model: no summary of what an observation said. Returns the same array when nothing is folded.
 */
export function compactHistory(messages: ModelMessage[]): ModelMessage[] {
  const head: ModelMessage[] = [];
  const rounds: ToolRound[] = [];
  for (const message of messages) {
    if (message.role === 'assistant') rounds.push({ assistant: message, results: [] });
    else if (rounds.length === 0) head.push(message);
    else rounds.at(-1)?.results.push(message);
  }
  const [first, ...rest] = rounds;
  const newest = rest.at(-1);
  if (first === undefined || newest === undefined || toolCallsOf(first.assistant).length === 0) return messages;
  const recorded = readCallRecord(first);
  const folded = recorded === null ? [first, ...rest.slice(0, -1)] : rest.slice(0, -1);
  if (folded.length === 0 || utf8Bytes(JSON.stringify(messages)) <= COMPACT_HISTORY_AT_BYTES) return messages;
  const entries = againstFirstCall(recorded ?? [], folded.flatMap(recordEntries));
  return [...head, first.assistant, callRecord(first.assistant, entries), newest.assistant, ...newest.results];
}

const toolCallsOf = (assistant: AssistantModelMessage) =>
  typeof assistant.content === 'string' ? [] : assistant.content.filter((part) => part.type === 'tool-call');

type JSONObject = { [key: string]: JSONValue };

const isObject = (value: unknown): value is JSONObject =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * The record's entries with new ones appended, each new call of a tool already listed with only the input fields
 * that differ from its first listed call's (a field it lacks as null), its first call's input whole; and its tool as
 * null when the row above names the same one. NOTE: a run often asks one service and window again with another
 * keyword (the window alone is about 30 tokens, the tool's name 3); and a listed row never changes, so the record
 * still grows only at its end (the prompt cache keeps what it was).
 */
function againstFirstCall(recorded: CallRecordEntry[], added: CallRecordEntry[]): CallRecordEntry[] {
  const entries = [...recorded];
  const tools = toolsOf(recorded);
  for (const entry of added) {
    const [ref, tool, input, status, rows] = entry;
    const above = tools.at(-1);
    tools.push(tool);
    const shown = tool === above ? null : tool;
    const first = entries[tools.indexOf(tool)]?.[2];
    if (!isObject(first) || !isObject(input) || tools.indexOf(tool) === tools.length - 1) {
      entries.push([ref, shown, input, status, rows]);
      continue;
    }
    const changed = Object.entries(input).filter(
      ([key, value]) => JSON.stringify(first[key]) !== JSON.stringify(value),
    );
    const missing = Object.keys(first).filter((key) => !(key in input));
    entries.push([ref, shown, Object.fromEntries([...changed, ...missing.map((key) => [key, null])]), status, rows]);
  }
  return entries;
}

/** Each listed row's tool, a null (the same as the row above) resolved. */
function toolsOf(entries: readonly CallRecordEntry[]): (string | null)[] {
  const tools: (string | null)[] = [];
  for (const [, tool] of entries) tools.push(tool ?? tools.at(-1) ?? null);
  return tools;
}

/** The entries of the record a first round holds, or null when its result is still the observation. */
function readCallRecord(round: ToolRound): CallRecordEntry[] | null {
  const [message] = round.results;
  if (message?.role !== 'tool') return null;
  const [part] = message.content;
  if (part?.type !== 'tool-result' || part.output.type !== 'json') return null;
  const value = part.output.value as { evidence_status?: unknown; calls?: unknown } | null;
  return value?.evidence_status === CALL_RECORD_STATUS && Array.isArray(value.calls)
    ? (value.calls as CallRecordEntry[])
    : null;
}

/**
 * The first round's answer once folded: its first call's result is the record; any other call it made gets a bare
 * COMPACTED result (every call of an assistant message needs its result), its entry being in the record.
 */
function callRecord(assistant: AssistantModelMessage, entries: readonly CallRecordEntry[]): ToolModelMessage {
  return {
    role: 'tool',
    content: toolCallsOf(assistant).map(
      (call, index): ToolResultPart => ({
        type: 'tool-result',
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        output: {
          type: 'json',
          // NOTE: `calls` last: the record grows only at its end, so the provider's cache keeps its earlier part.
          value:
            index === 0
              ? {
                  tool_call_id: call.toolCallId,
                  evidence_status: CALL_RECORD_STATUS,
                  message: CALL_RECORD_NOTE,
                  columns: [...CALL_RECORD_COLUMNS],
                  calls: entries as unknown as JSONValue[],
                }
              : { tool_call_id: call.toolCallId, evidence_status: CALL_RECORD_STATUS },
        },
      }),
    ),
  };
}

/** The record's entries for one tool round: each call of its assistant message with the result it got. */
function recordEntries(round: ToolRound): CallRecordEntry[] {
  const results = new Map<string, JSONValue>();
  for (const message of round.results) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type === 'tool-result' && part.output.type === 'json') results.set(part.toolCallId, part.output.value);
    }
  }
  return toolCallsOf(round.assistant).map((call) => {
    const observation = (results.get(call.toolCallId) ?? null) as {
      ref?: JSONValue;
      evidence_status?: JSONValue;
      data?: { rows?: unknown[]; lines?: unknown[]; hits?: unknown[] };
    } | null;
    const envelope = call.input as { input?: JSONValue } | null;
    const input =
      envelope !== null && typeof envelope === 'object' && 'input' in envelope ? (envelope.input ?? null) : null;
    const data = observation?.data;
    const rows = data?.rows ?? data?.lines ?? data?.hits;
    return [
      typeof observation?.ref === 'number' ? observation.ref : null,
      call.toolName,
      utf8Bytes(JSON.stringify(input)) > CALL_RECORD_MAX_INPUT_BYTES ? null : input,
      observation?.evidence_status ?? null,
      Array.isArray(rows) ? rows.length : null,
    ];
  });
}
