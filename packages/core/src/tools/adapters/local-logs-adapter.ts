import { createReadStream } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type {
  AdapterResult,
  EvidenceAdapter,
  LogLine,
  LogsData,
  LogsInput,
  ToolCallRequest,
} from '../evidence-adapter.ts';

export interface LocalLogsAdapterOptions {
  /** A folder of `*.jsonl` files, one JSON object a line: `{ timestamp, level, service, message, trace_id?, <tenantField> }`. */
  directory: string;
  /** The field that carries the tenant; the filter on it is always added from the run. */
  tenantField?: string;
  /** Default number of lines returned when the model gives no limit. */
  defaultLimit?: number;
}

const READ_CHUNK_BYTES = 1 << 20;

/**
 * `query_logs` over local JSON Lines files: the same semantics as the CloudWatch adapter (tenant from the run,
 * window, level, case-insensitive keyword, trace id), newest first, `matched` = total matches. Files are streamed in
 * chunks, never loaded whole, and a line is only parsed when its raw text can match.
 */
export function createLocalLogsAdapter(options: LocalLogsAdapterOptions): EvidenceAdapter<LogsInput, LogsData> {
  const tenantField = options.tenantField ?? 'enterprise_id';
  const defaultLimit = options.defaultLimit ?? 20;

  return {
    async execute(call: ToolCallRequest<LogsInput>): Promise<AdapterResult<LogsData>> {
      let files: string[];
      try {
        files = (await readdir(options.directory)).filter((name) => name.endsWith('.jsonl')).sort();
      } catch {
        return { status: 'ERROR', code: 'NOT_CONFIGURED', detail: 'log directory is not readable' };
      }
      const matcher = createLineMatcher(call, tenantField);
      const newest = createNewestLines(Math.min(50, Math.max(1, call.input.limit ?? defaultLimit)));
      try {
        for (const file of files) {
          if (call.signal.aborted) break;
          await scanFile(join(options.directory, file), call.signal, (line) => {
            const match = matcher(line);
            if (match !== undefined) newest.add(match.time, match.line);
          });
        }
      } catch {
        return { status: 'ERROR', code: 'UNAVAILABLE', detail: 'log file could not be read' };
      }
      if (call.signal.aborted) return { status: 'ERROR', code: 'TIMEOUT', detail: 'aborted by the harness' };
      if (newest.matched === 0) return { status: 'EMPTY' };
      return { status: 'OK', data: { matched: newest.matched, lines: newest.lines() } };
    },
  };
}

/** Builds the per-line filter of one query; undefined for a line that does not match. */
export function createLineMatcher(call: ToolCallRequest<LogsInput>, tenantField: string) {
  const { input } = call;
  const start = Date.parse(input.start_time);
  const end = Date.parse(input.end_time);
  const keyword = input.keyword?.toLowerCase();
  // NOTE: a field equal to a plain ASCII value must contain its JSON form verbatim; skip JSON.parse otherwise.
  const needles = [call.enterpriseId, input.service, input.trace_id]
    .filter((value): value is string => value !== undefined)
    .map((value) => JSON.stringify(value))
    .filter((needle) => /^"[\x20-\x7e]*"$/.test(needle) && !needle.includes('\\'));

  return (raw: string): { time: number; line: LogLine } | undefined => {
    for (const needle of needles) if (!raw.includes(needle)) return undefined;
    let record: Record<string, unknown>;
    try {
      record = JSON.parse(raw);
    } catch {
      return undefined;
    }
    if (record[tenantField] !== call.enterpriseId || record.service !== input.service) return undefined;
    if (input.level !== undefined && record.level !== input.level) return undefined;
    if (input.trace_id !== undefined && record.trace_id !== input.trace_id) return undefined;
    const { timestamp, message, level } = record;
    if (typeof timestamp !== 'string' || typeof message !== 'string' || typeof level !== 'string') return undefined;
    if (keyword !== undefined && !message.toLowerCase().includes(keyword)) return undefined;
    const time = Date.parse(timestamp);
    if (!(time >= start && time <= end)) return undefined;
    const line: LogLine = { timestamp, level, service: input.service, message };
    if (typeof record.trace_id === 'string') line.trace_id = record.trace_id;
    return { time, line };
  };
}

/** Keeps the `limit` newest lines seen and counts all of them. */
function createNewestLines(limit: number) {
  const kept: { time: number; line: LogLine }[] = [];
  let matched = 0;
  return {
    get matched() {
      return matched;
    },
    add(time: number, line: LogLine) {
      matched += 1;
      const oldest = kept.at(-1);
      if (kept.length === limit && oldest !== undefined && time <= oldest.time) return;
      let index = kept.length;
      while (index > 0 && (kept[index - 1]?.time ?? 0) < time) index -= 1;
      kept.splice(index, 0, { time, line });
      if (kept.length > limit) kept.pop();
    },
    lines: () => kept.map((entry) => entry.line),
  };
}

/** Streams a file and hands every complete line to `onLine`; stops early when the signal aborts. */
async function scanFile(path: string, signal: AbortSignal, onLine: (line: string) => void): Promise<void> {
  const stream = createReadStream(path, { encoding: 'utf8', highWaterMark: READ_CHUNK_BYTES });
  let rest = '';
  try {
    for await (const chunk of stream as AsyncIterable<string>) {
      if (signal.aborted) return;
      const text = rest + chunk;
      let from = 0;
      let newline = text.indexOf('\n', from);
      while (newline !== -1) {
        if (newline > from) onLine(text.slice(from, newline));
        from = newline + 1;
        newline = text.indexOf('\n', from);
      }
      rest = text.slice(from);
    }
    if (rest.length > 0) onLine(rest);
  } finally {
    stream.destroy();
  }
}
