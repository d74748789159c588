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
 * evidence): the same content, with log lines as a table — `columns` once and one `rows` entry per line (a missing
 * `trace_id` is `null`), `service` and `level` each said once when every line has the same one (a logs query names
 * one service, and often one level), and the date said once (`date`, each row's `time` the rest of its timestamp)
 * when every line is of the same day.
 * NOTE: a pure function of the audited observation, which is already projected and masked (masking happens in the
 * projection, before this format), so audit, trace and citations keep the lines as objects and the model's bytes
 * follow from them exactly.
 */
export function toModelObservation(observation: Observation): Record<string, unknown> {
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
  const date = sharedDate(data.lines.map((line) => line.timestamp));
  const columns = kept.map((column) => (column === 'timestamp' && date !== undefined ? 'time' : column));
  return {
    ...observation,
    data: {
      matched: data.matched,
      ...(service === undefined ? {} : { service }),
      ...(level === undefined ? {} : { level }),
      ...(date === undefined ? {} : { date }),
      columns,
      rows: data.lines.map((line) =>
        kept.map((column) =>
          column === 'timestamp' && date !== undefined ? line.timestamp.slice(DATE_PREFIX) : (line[column] ?? null),
        ),
      ),
    },
  };
}

/** The one value every line has, or undefined when the lines differ (or there are none). */
function sharedValue(values: readonly string[]): string | undefined {
  const first = values[0];
  return first !== undefined && values.every((value) => value === first) ? first : undefined;
}

/** `2026-11-30T`: the length of an ISO timestamp's date and its `T`. */
const DATE_PREFIX = 11;
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;

/**
 * The one calendar date every timestamp starts with (`2026-11-30`), or undefined when they are not all ISO date-times
 * of one day: then each row keeps its whole timestamp. NOTE: the time keeps its own offset (`06:55:56.642Z`), so
 * `date` + `T` + time is the timestamp exactly.
 */
function sharedDate(timestamps: readonly string[]): string | undefined {
  const first = timestamps[0];
  if (first === undefined || !ISO_DATE_TIME.test(first)) return undefined;
  const date = first.slice(0, DATE_PREFIX - 1);
  const same = timestamps.every((stamp) => ISO_DATE_TIME.test(stamp) && stamp.startsWith(`${date}T`));
  return same ? date : undefined;
}

/** The columns of a change-stream row in the model's tabular form, in order. */
const CHANGE_COLUMNS = ['time', 'service', 'kind', 'ref', 'actor', 'summary', 'url', 'placement', 'change_id'] as const;

/**
 * The change stream's rows as a table: one row per change, `columns` once, the date said once when every change
 * landed the same day (as for log lines), `placement` as code set it.
 */
function changeTable(matched: number, lines: readonly LogLine[]): Record<string, unknown> {
  const date = sharedDate(lines.map((line) => line.timestamp));
  return {
    matched,
    ...(date === undefined ? {} : { date }),
    columns: CHANGE_COLUMNS,
    rows: lines.map((line) => [
      date === undefined ? line.timestamp : line.timestamp.slice(DATE_PREFIX),
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
