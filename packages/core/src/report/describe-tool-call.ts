import { replaceUnsafeCharacters } from '../run/unsafe-characters.ts';
import { truncateChars } from '../run/utf8.ts';
import { isRecord } from '../tools/evidence-projection.ts';

/** The longest one-line description of a tool call (what was asked → what came back), in characters. */
const MAX_TOOL_CALL_SUMMARY_CHARS = 240;
const MAX_VALUE_CHARS = 60;

/**
 * One line a person reads in place of a tool call id: what was asked and what came back, e.g.
 * `query_logs payment-gateway 14:00–15:00 keyword=HikariPool → 67 matching lines, 10 shown`. Built only from the
 * business input and the observation the model saw (never the adapter's raw data), each value bounded and stripped of
 * control and bidirectional characters, so it is safe on a terminal and in a log line. Unknown shapes degrade to
 * fewer words, never to an exception.
 */
export function describeToolCall(toolName: string, input: unknown, observation: unknown): string {
  const asked = describeInput(toolName, input);
  const found = describeObservation(observation);
  return truncateChars(
    `${printable(toolName)}${asked === '' ? '' : ` ${asked}`} → ${found}`,
    MAX_TOOL_CALL_SUMMARY_CHARS,
  );
}

/** The business input in a few words: `"订单失败" service=order-service`, `payment-gateway 14:00–15:00 level=ERROR`. */
export function describeInput(toolName: string, input: unknown): string {
  if (!isRecord(input)) return typeof input === 'string' ? value(input) : '';
  const used: string[] = [];
  const take = (key: string, form: (text: string) => string = (text) => text) => {
    const entry = input[key];
    if (typeof entry !== 'string') return '';
    used.push(key);
    return form(value(entry));
  };
  let head: string[] = [];
  if (toolName === 'lookup_knowledge') head = [take('query', (text) => `“${text}”`)];
  else if (toolName === 'query_logs') {
    const logWindow = window(input.start_time, input.end_time);
    if (logWindow !== '') used.push('start_time', 'end_time');
    head = [take('service'), logWindow];
  } else if (toolName === 'query_mysql') {
    head = [take('query_name')];
    if (isRecord(input.params)) {
      used.push('params');
      head.push(...Object.entries(input.params).map(([key, entry]) => `${value(key)}=${value(entry)}`));
    }
  }
  const rest = Object.entries(input)
    .filter(([key, entry]) => !used.includes(key) && entry !== undefined)
    .map(([key, entry]) => `${value(key)}=${value(entry)}`);
  return [...head, ...rest].filter(Boolean).join(' ');
}

/**
 * What came back, from the observation the model saw: `3 runbook hits: …`, `1 runbook hit, 1 past incident (a lead,
 * not evidence): …`, `no match`, `ERROR TIMEOUT`.
 */
export function describeObservation(observation: unknown): string {
  if (!isRecord(observation))
    return observation === null || observation === undefined ? 'no observation' : 'unreadable';
  const status = observation.evidence_status;
  const code = typeof observation.code === 'string' ? ` ${value(observation.code)}` : '';
  if (status === 'EMPTY') return 'no match';
  if (status === 'ERROR' || status === 'REJECTED') return `${status}${code}`;
  if (status === 'STOP_REQUIRED') return 'not run (STOP_REQUIRED)';
  if (status !== 'OK' || !isRecord(observation.data)) return 'unreadable';
  const data = observation.data;
  if (Array.isArray(data.hits)) {
    const titles = data.hits.map((hit) => (isRecord(hit) && typeof hit.title === 'string' ? value(hit.title) : '?'));
    // NOTE: a past incident is a lead, never evidence (docs/memory.md): counted apart from the runbooks, and said so.
    const past = data.hits.filter((hit) => isRecord(hit) && hit.source === 'past_incident').length;
    const runbooks = data.hits.length - past;
    const counts = [
      runbooks > 0 || past === 0 ? plural(runbooks, 'runbook hit') : null,
      past === 0 ? null : `${plural(past, 'past incident')} (${past === 1 ? 'a lead' : 'leads'}, not evidence)`,
    ].filter((part) => part !== null);
    return `${counts.join(', ')}: ${titles.join('; ')}`;
  }
  if (Array.isArray(data.lines)) {
    const matched = typeof data.matched === 'number' ? data.matched : data.lines.length;
    return `${plural(matched, 'matching line')}, ${data.lines.length} shown`;
  }
  if (Array.isArray(data.rows)) {
    const columns = Array.isArray(data.columns) ? ` (${data.columns.map((column) => value(column)).join(', ')})` : '';
    return `${plural(data.rows.length, 'row')}${data.truncated === true ? ' (more matched)' : ''}${columns}`;
  }
  return 'unreadable';
}

/** `14:00–15:00` when both times are on the same day as written (with their offset), else both as written. */
function window(start: unknown, end: unknown): string {
  if (typeof start !== 'string' || typeof end !== 'string') return '';
  const clock = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/;
  const from = clock.exec(start);
  const to = clock.exec(end);
  if (from === null || to === null) return `${value(start)}–${value(end)}`;
  return from[1] === to[1] ? `${from[1]} ${from[2]}–${to[2]}` : `${value(start)}–${value(end)}`;
}

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

/** A value as a short, printable word. */
function value(entry: unknown): string {
  const text = typeof entry === 'string' ? entry : (JSON.stringify(entry) ?? String(entry));
  return printable(truncateChars(text, MAX_VALUE_CHARS)).replace(/\s+/g, ' ');
}

/**
 * The text with control characters (C0, DEL, C1) and bidirectional controls replaced by U+FFFD (`unsafe-characters.ts`). NOTE: tool inputs
 * and observations come from the model and the evidence sources; an escape sequence in a log line must not reach a
 * terminal as one.
 */
export function printable(text: string): string {
  return replaceUnsafeCharacters(text, () => '\uFFFD');
}

/** The business input of an audited envelope (`{ previous_observation?, input }`); anything else as it is. */
export function envelopeInput(stored: unknown): unknown {
  return isRecord(stored) && Object.hasOwn(stored, 'input') ? stored.input : stored;
}
