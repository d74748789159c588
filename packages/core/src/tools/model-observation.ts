import type { LogLine } from './evidence-adapter.ts';
import type { Observation } from './observation.ts';

/** The columns of a log line in the model's tabular form, in order. */
const LOG_COLUMNS = [
  'timestamp',
  'level',
  'service',
  'message',
  'trace_id',
] as const satisfies readonly (keyof LogLine)[];

/**
 * An observation in the compact form the models read (the agent's tool results and the SemanticGuard judge's
 * evidence): the same content, with log lines as a table (see {@link toLogTable}) whose messages say their shared
 * parts once (see {@link withSharedMessageParts}).
 * NOTE: a pure function of the audited observation, which is already projected and masked (masking happens in the
 * projection, before this format), so audit, trace and citations keep the lines as objects and the model's bytes
 * follow from them exactly.
 */
export function toModelObservation(observation: Observation): Record<string, unknown> {
  const value = toLogTable(observation);
  const data = value.data;
  return isTable(data) ? { ...value, data: withSharedMessageParts(data) } : value;
}

/**
 * The observation with its log lines as a table: `columns` once and one `rows` entry per line (a missing `trace_id`
 * is `null`), `service` and `level` each said once when every line has the same one (a logs query names one service,
 * and often one level), and the date and the UTC offset said once (`date`, `offset`, each row's `time` the rest of
 * its timestamp) when every line is of the same day and offset. Every message stays whole: the judge's evidence
 * rewrites messages (pseudonyms that link nothing) before their shared parts are found.
 */
export function toLogTable(observation: Observation): Record<string, unknown> {
  const data = observation.data;
  if (data === undefined || !('lines' in data)) return { ...observation };
  if (data.lines.length > 0 && data.lines.every((line) => line.change !== undefined)) {
    return { ...observation, data: changeTable(data.matched, data.lines) };
  }
  const service = sharedValue(data.lines.map((line) => line.service));
  const level = sharedValue(data.lines.map((line) => line.level));
  const kept = LOG_COLUMNS.filter(
    (column) => !(column === 'service' && service !== undefined) && !(column === 'level' && level !== undefined),
  );
  const day = sharedDay(data.lines.map((line) => line.timestamp));
  const columns = kept.map((column) => (column === 'timestamp' && day !== undefined ? 'time' : column));
  return {
    ...observation,
    data: {
      matched: data.matched,
      ...(service === undefined ? {} : { service }),
      ...(level === undefined ? {} : { level }),
      ...dayFields(day),
      columns,
      rows: data.lines.map((line) =>
        kept.map((column) =>
          column === 'timestamp' && day !== undefined ? timeOf(line.timestamp, day) : (line[column] ?? null),
        ),
      ),
    },
  };
}

/** A log table as {@link toLogTable} writes it (other fields beside `columns` and `rows`). */
type LogTable = Record<string, unknown> & { columns: readonly unknown[]; rows: readonly unknown[][] };

function isTable(value: unknown): value is LogTable {
  if (value === null || typeof value !== 'object' || !('columns' in value) || !('rows' in value)) return false;
  const { columns, rows } = value;
  return Array.isArray(columns) && Array.isArray(rows) && rows.every(Array.isArray);
}

/**
 * Shared parts shorter than this are left in every row: the key that says one once costs about as much as it saves.
 */
const MIN_SHARED_PART_CHARS = 16;

/**
 * A log table whose messages say once what every one of them has: one `message` when they are all the same (its
 * column goes, as `service` and `level` do), else `message_prefix` and `message_suffix` when every message starts or
 * ends with the same text (cut at a space, so no word is split; at least {@link MIN_SHARED_PART_CHARS} characters),
 * each row's `message` the rest: prefix + cell + suffix is the message exactly. Any other value is returned as it is.
 * NOTE: lines of one query are often one template with a few values changed (an id, a count): the template's text,
 * about 10–40 tokens a line, is then sent once, not once per line.
 */
export function withSharedMessageParts<T>(value: T): T {
  if (!isTable(value)) return value;
  const at = value.columns.indexOf('message');
  if (at < 0) return value;
  const messages = value.rows.map((row) => row[at]);
  if (messages.length < 2 || !messages.every((message) => typeof message === 'string')) return value;
  const { columns, rows, ...fields } = value;
  const first = messages[0] ?? '';
  if (messages.every((message) => message === first)) {
    const without = <C>(cells: readonly C[]) => cells.filter((_, column) => column !== at);
    return { ...fields, message: first, columns: without(columns), rows: rows.map(without) } as T;
  }
  const prefix = sharedPrefix(messages);
  const rests = messages.map((message) => message.slice(prefix.length));
  const suffix = sharedSuffix(rests);
  if (prefix === '' && suffix === '') return value;
  return {
    ...fields,
    ...(prefix === '' ? {} : { message_prefix: prefix }),
    ...(suffix === '' ? {} : { message_suffix: suffix }),
    columns,
    rows: rows.map((row, index) => {
      const rest = rests[index] ?? '';
      return row.map((cell, column) => (column === at ? rest.slice(0, rest.length - suffix.length) : cell));
    }),
  } as T;
}

/** The text every message starts with, up to and with its last space ('' when shorter than the minimum). */
function sharedPrefix(messages: readonly string[]): string {
  let shared = messages[0] ?? '';
  for (const message of messages) {
    let length = 0;
    while (length < shared.length && length < message.length && shared[length] === message[length]) length += 1;
    shared = shared.slice(0, length);
  }
  const cut = shared.slice(0, shared.lastIndexOf(' ') + 1);
  return cut.length >= MIN_SHARED_PART_CHARS ? cut : '';
}

/** The text every message ends with, from and with its first space ('' when shorter than the minimum). */
function sharedSuffix(messages: readonly string[]): string {
  let shared = messages[0] ?? '';
  for (const message of messages) {
    let length = 0;
    while (
      length < shared.length &&
      length < message.length &&
      shared[shared.length - 1 - length] === message[message.length - 1 - length]
    )
      length += 1;
    shared = shared.slice(shared.length - length);
  }
  const space = shared.indexOf(' ');
  const cut = space < 0 ? '' : shared.slice(space);
  return cut.length >= MIN_SHARED_PART_CHARS ? cut : '';
}

/** The one value every line has, or undefined when the lines differ (or there are none). */
function sharedValue(values: readonly string[]): string | undefined {
  const first = values[0];
  return first !== undefined && values.every((value) => value === first) ? first : undefined;
}

/** `2026-11-30T`: the length of an ISO timestamp's date and its `T`. */
const DATE_PREFIX = 11;
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;
const UTC_OFFSET = /(?:Z|[+-]\d{2}:\d{2})$/;

/** The calendar date and the UTC offset every timestamp of a table shares (the offset '' when they differ). */
interface Day {
  date: string;
  offset: string;
}

/**
 * The one calendar date every timestamp starts with (`2026-11-30`) and the one UTC offset they all end with (`Z`,
 * `+08:00`; '' when they differ or some have none), or undefined when they are not all ISO date-times of one day:
 * then each row keeps its whole timestamp. NOTE: `date` + `T` + time + `offset` is the timestamp exactly.
 */
function sharedDay(timestamps: readonly string[]): Day | undefined {
  const first = timestamps[0];
  if (first === undefined || !ISO_DATE_TIME.test(first)) return undefined;
  const date = first.slice(0, DATE_PREFIX - 1);
  if (!timestamps.every((stamp) => ISO_DATE_TIME.test(stamp) && stamp.startsWith(`${date}T`))) return undefined;
  const offset = UTC_OFFSET.exec(first)?.[0] ?? '';
  return { date, offset: timestamps.every((stamp) => stamp.endsWith(offset)) ? offset : '' };
}

/** What a table says once about its times (see {@link sharedDay}). */
function dayFields(day: Day | undefined): Record<string, string> {
  if (day === undefined) return {};
  return day.offset === '' ? { date: day.date } : { date: day.date, offset: day.offset };
}

/** A timestamp without what its table says once. */
function timeOf(timestamp: string, day: Day | undefined): string {
  if (day === undefined) return timestamp;
  return timestamp.slice(DATE_PREFIX, timestamp.length - day.offset.length);
}

/** The columns of a change-stream row in the model's tabular form, in order. */
const CHANGE_COLUMNS = ['time', 'service', 'kind', 'ref', 'actor', 'summary', 'url', 'placement', 'change_id'] as const;

/**
 * The change stream's rows as a table: one row per change, `columns` once, the date and offset said once when every
 * change landed the same day (as for log lines), `placement` as code set it.
 */
function changeTable(matched: number, lines: readonly LogLine[]): Record<string, unknown> {
  const day = sharedDay(lines.map((line) => line.timestamp));
  return {
    matched,
    ...dayFields(day),
    columns: CHANGE_COLUMNS,
    rows: lines.map((line) => [
      timeOf(line.timestamp, day),
      line.service === '' ? null : line.service,
      line.change?.kind ?? line.level,
      line.change?.ref ?? null,
      line.change?.actor ?? null,
      line.message,
      line.change?.url ?? null,
      line.change?.placement ?? null,
      line.change?.change_id ?? null,
    ]),
  };
}
