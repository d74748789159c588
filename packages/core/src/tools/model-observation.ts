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
 * An observation in the compact form the SemanticGuard judge reads: the same content, with log lines as a table —
 * `columns` once and one `rows` entry per line (a missing `trace_id` is `null`), and `service` said once when every
 * line has the same one (a logs query names one service). NOTE: the agent reads its observations exactly as the
 * audit records them (lines as objects); a tabular form for the agent too belongs in the projection itself, so
 * audit, trace and citations keep showing what the model saw.
 */
export function toModelObservation(observation: Observation): Record<string, unknown> {
  const data = observation.data;
  if (data === undefined || !('lines' in data)) return { ...observation };
  const services = new Set(data.lines.map((line) => line.service));
  const shared = services.size === 1 ? data.lines[0]?.service : undefined;
  const columns = LOG_COLUMNS.filter((column) => !(column === 'service' && shared !== undefined));
  return {
    ...observation,
    data: {
      matched: data.matched,
      ...(shared === undefined ? {} : { service: shared }),
      columns,
      rows: data.lines.map((line) => columns.map((column) => line[column] ?? null)),
    },
  };
}
