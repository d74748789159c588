import { truncateChars } from '../run/utf8.ts';

/** The most characters of one value in a description (a keyword, a service, a parameter). */
export const MAX_DESCRIBED_VALUE_CHARS = 40;
/** The most characters of a whole description. */
export const MAX_DESCRIPTION_CHARS = 200;

/**
 * One tool call in a few words: what was asked and what came back, for a person watching a run, e.g.
 * `query_logs payment-gateway 14:00–15:00 kw=HikariPool → 67 matches`,
 * `lookup_knowledge "订单失败 支付超时" svc=order-service → 3 hits`, `query_mysql failed_orders_by_minute(…) → 12 rows`,
 * `query_logs order-service 14:00–15:00 → no match`, `query_mysql … → ERROR NOT_CONFIGURED`,
 * `query_logs (invalid input) → refused INVALID_INPUT`.
 *
 * Pure and bounded: it reads only named fields of the envelope the model sent and of the observation the model saw
 * (counts, codes), never the evidence text itself; each value is cut to {@link MAX_DESCRIBED_VALUE_CHARS} characters
 * and the line to {@link MAX_DESCRIPTION_CHARS}. NOTE: the input is the model's text, so control characters
 * (terminal escapes, line breaks, bidirectional overrides) are replaced: a line can never rewrite a terminal.
 */
export function describeToolCall(tool: string, input: unknown, observation: unknown): string {
  const name = clean(tool) || '(unnamed tool)';
  const asked = describeInput(tool, businessInput(input));
  const answer = describeObservation(observation);
  return truncateChars(`${name}${asked === '' ? '' : ` ${asked}`} → ${answer}`, MAX_DESCRIPTION_CHARS);
}

/** The business input of an envelope (`{ previous_observation?, input }`), or null when it has none. */
function businessInput(envelope: unknown): Record<string, unknown> | null {
  if (!isRecord(envelope)) return null;
  return isRecord(envelope.input) ? envelope.input : null;
}

function describeInput(tool: string, input: Record<string, unknown> | null): string {
  if (input === null) return '(invalid input)';
  switch (tool) {
    case 'lookup_knowledge':
      return words([quoted(input.query), labelled('svc', input.service), labelled('top', input.top_k)]);
    case 'query_logs':
      return words([
        value(input.service),
        window(input.start_time, input.end_time),
        labelled('level', input.level),
        labelled('kw', input.keyword),
        labelled('trace', input.trace_id),
      ]);
    case 'query_mysql':
      return `${value(input.query_name) || '(no query)'}(${parameters(input.params)})`;
    default:
      return '';
  }
}

function describeObservation(observation: unknown): string {
  if (!isRecord(observation)) return 'no observation';
  const code = value(observation.code);
  switch (observation.evidence_status) {
    case 'OK':
      return describeData(observation.data);
    case 'EMPTY':
      return 'no match';
    case 'ERROR':
      return `ERROR ${code || 'INTERNAL'}`;
    case 'REJECTED':
      return `refused ${code || 'REJECTED'}`;
    case 'STOP_REQUIRED':
      return 'STOP_REQUIRED (collection is over)';
    default:
      return 'unknown outcome';
  }
}

/** Counts only: hits, matching log lines, rows. */
function describeData(data: unknown): string {
  if (!isRecord(data)) return 'evidence';
  if (Array.isArray(data.hits)) return plural(data.hits.length, 'hit');
  if (typeof data.matched === 'number' && Number.isSafeInteger(data.matched)) {
    return plural(data.matched, 'match', 'matches');
  }
  if (Array.isArray(data.rows))
    return `${plural(data.rows.length, 'row')}${data.truncated === true ? ' (more matched)' : ''}`;
  return 'evidence';
}

/** `14:00–15:00` (the times as the model wrote them, offset left out); the dates too when they differ. */
function window(start: unknown, end: unknown): string {
  const parse = (text: unknown) =>
    typeof text === 'string' ? /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(text.slice(0, 64)) : null;
  const from = parse(start);
  const to = parse(end);
  if (from === null || to === null) return '';
  return from[1] === to[1] ? `${from[2]}–${to[2]}` : `${from[1]} ${from[2]}–${to[1]} ${to[2]}`;
}

function parameters(params: unknown): string {
  if (!isRecord(params)) return '';
  const entries = Object.entries(params).slice(0, 4);
  const shown = entries.map(([key, item]) => `${clean(key).slice(0, 24)}=${value(item)}`).join(', ');
  return Object.keys(params).length > entries.length ? `${shown}, …` : shown;
}

function labelled(label: string, item: unknown): string {
  const text = value(item);
  return text === '' ? '' : `${label}=${text}`;
}

function quoted(item: unknown): string {
  const text = value(item);
  return text === '' ? '' : `"${text}"`;
}

/** A string or number as at most {@link MAX_DESCRIBED_VALUE_CHARS} clean characters ('' for anything else). */
function value(item: unknown): string {
  if (typeof item === 'number' && Number.isFinite(item)) return String(item);
  if (typeof item !== 'string') return '';
  const text = clean(item.slice(0, MAX_DESCRIBED_VALUE_CHARS * 2))
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > MAX_DESCRIBED_VALUE_CHARS ? `${truncateChars(text, MAX_DESCRIBED_VALUE_CHARS - 1)}…` : text;
}

/** Replaces control characters, bidirectional controls and lone surrogates with U+FFFD. */
function clean(text: string): string {
  return text
    .slice(0, 4 * MAX_DESCRIPTION_CHARS)
    .replace(/[\t\n]/g, ' ')
    .replace(/[\p{Cc}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu, '\uFFFD')
    .toWellFormed();
}

function words(parts: string[]): string {
  return parts.filter((part) => part !== '').join(' ');
}

function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : pluralForm}`;
}

function isRecord(item: unknown): item is Record<string, unknown> {
  return typeof item === 'object' && item !== null && !Array.isArray(item);
}
