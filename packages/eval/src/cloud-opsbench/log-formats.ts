/**
 * The application's own line formats in Cloud-OpsBench's container logs: what starts a log event, its level and its
 * time when the line carries one. Spring Boot and logback (`2026-03-12 17:42:40.639 ERROR 1 --- [main] c.z.h.p.HikariPool
 * : …`, comma or dot milliseconds), RabbitMQ's lager (`… [debug] <0.288.0> …`), MySQL (`…+08:00 0 [Warning] …`),
 * gunicorn (`[2026-03-17 15:40:35 +0800] [1] [INFO] …`), Go's zap and Istio (`<time>\tinfo\t…`), klog (`E0312
 * 17:42:40.123456 1 file.go:12] …`), nginx's error log (`2026/03/12 02:42:44 [error] 7#7: …`) and access log (the level
 * from the status: 5xx ERROR, 4xx WARN), Redis (`1:M 21 Nov 2025 11:49:19.553 # …`), .NET's console logger (`fail:
 * Category[0]`, its message on the indented lines after), and JSON lines (Go's logrus, pino, log4j2, Python's
 * structured logging: `severity`/`level`, `timestamp`/`time`/`ts`/`instant`, `message`/`msg`).
 * NOTE: pure functions of one line; the order of the checks is the order of the formats above, most specific first.
 */

/** The levels a record carries: the logs tool's three, DEBUG (trace and debug), and UNKNOWN for a line without one. */
export type RecordLevel = 'ERROR' | 'WARN' | 'INFO' | 'DEBUG' | 'UNKNOWN';

/** A time as the line writes it: an instant (epoch ms) when it names its zone, else the wall-clock fields alone. */
export type LineTime = { kind: 'instant'; ms: number; offset: string } | { kind: 'naive'; wallMs: number };

export interface LineHeader {
  level: RecordLevel;
  time: LineTime | undefined;
  /** The line without its time and level (and a JSON line's other fields after its message). */
  message: string;
}

/** Maps a level word of any of the formats (case-insensitive) to a record level; undefined for an unknown word. */
export function levelOf(word: string): RecordLevel | undefined {
  switch (word.toLowerCase()) {
    case 'error':
    case 'err':
    case 'fatal':
    case 'severe':
    case 'critical':
    case 'crit':
    case 'emerg':
    case 'emergency':
    case 'alert':
    case 'panic':
    case 'fail':
      return 'ERROR';
    case 'warn':
    case 'warning':
      return 'WARN';
    case 'info':
    case 'notice':
    case 'note':
    case 'system':
      return 'INFO';
    case 'debug':
    case 'dbug':
    case 'trace':
    case 'trce':
    case 'verbose':
      return 'DEBUG';
    default:
      return undefined;
  }
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** `2026-03-12 17:42:40.639` (or `T`, `,`) as wall-clock fields, read as if UTC; NaN when not a date. */
function wallClock(date: string, time: string, fraction = ''): number {
  const digits = `${fraction}000`.slice(0, 3);
  return Date.parse(`${date}T${time}.${digits}Z`);
}

/** `+0800`, `+08:00`, `Z` → `+08:00` / `Z`; undefined when absent or malformed. */
function offsetOf(zone: string | undefined): string | undefined {
  if (zone === undefined || zone === '') return undefined;
  if (zone === 'Z' || zone === 'z') return 'Z';
  const match = /^([+-])(\d{2}):?(\d{2})$/.exec(zone);
  return match === null ? undefined : `${match[1]}${match[2]}:${match[3]}`;
}

/** Minutes east of UTC of an offset written `+08:00` or `Z`. */
export function offsetMinutes(offset: string): number {
  if (offset === 'Z') return 0;
  const sign = offset.startsWith('-') ? -1 : 1;
  return sign * (Number(offset.slice(1, 3)) * 60 + Number(offset.slice(4, 6)));
}

function timeOf(wallMs: number, zone: string | undefined): LineTime | undefined {
  if (!Number.isFinite(wallMs)) return undefined;
  const offset = offsetOf(zone);
  if (offset === undefined) return { kind: 'naive', wallMs };
  return { kind: 'instant', ms: wallMs - offsetMinutes(offset) * 60_000, offset };
}

const ISO_DATE = String.raw`(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(?:[.,](\d{1,9}))?`;
const ZONE = String.raw`(Z|[+-]\d{2}:?\d{2})?`;
const LEVEL_WORDS =
  '(trace|debug|info|notice|note|system|warn|warning|error|err|fatal|severe|critical|crit|emerg|alert|panic)';

/**
 * Recognises the formats once per call. NOTE: the patterns are built per call, not at module level (see
 * docs/development.md on module-level code): a stream is parsed with one matcher.
 */
export function createHeaderParser() {
  // Spring Boot, logback, lager, python logging: time, optional pid in brackets, level word (bracketed or not).
  const dated = new RegExp(
    String.raw`^\[?${ISO_DATE}\s?${ZONE}\]?\s+(?:\d+\s+)?(?:\[\d+\]\s+)?\[?${LEVEL_WORDS}\]?(?::|\s)\s*(.*)$`,
    'is',
  );
  // Go's zap / Istio: tab-separated time and level.
  const tabbed = new RegExp(String.raw`^${ISO_DATE}${ZONE}\t${LEVEL_WORDS}\t(.*)$`, 'is');
  const klog = /^([IWEF])(\d{2})(\d{2}) (\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?\s+\d+\s+(\S+\] .*)$/s;
  const nginxError = /^(\d{4})\/(\d{2})\/(\d{2}) (\d{2}:\d{2}:\d{2}) \[(\w+)\] (.*)$/s;
  const nginxAccess = /^\S+ \S+ \S+ \[(\d{2})\/(\w{3})\/(\d{4}):(\d{2}:\d{2}:\d{2}) ([+-]\d{4})\] "[^"]*" (\d{3}) /;
  const redis = /^\d+:[XCSM] (\d{1,2}) (\w{3}) (\d{4}) (\d{2}:\d{2}:\d{2})\.(\d{3}) ([.\-*#]) (.*)$/s;
  const dotnet = /^(trce|dbug|info|warn|fail|crit): (.*)$/s;

  return function parseHeader(line: string, yearHint: number): LineHeader | undefined {
    const first = line.charCodeAt(0);
    if (first === 123 /* { */) return parseJsonLine(line);
    let match = dated.exec(line);
    if (match !== null) {
      const [, date, time, fraction, zone, word, rest] = match;
      const level = levelOf(word ?? '');
      if (level !== undefined) {
        return {
          level,
          time: timeOf(wallClock(date ?? '', time ?? '', fraction), zone),
          message: rest ?? '',
        };
      }
    }
    match = tabbed.exec(line);
    if (match !== null) {
      const [, date, time, fraction, zone, word, rest] = match;
      return {
        level: levelOf(word ?? '') ?? 'UNKNOWN',
        time: timeOf(wallClock(date ?? '', time ?? '', fraction), zone),
        message: rest ?? '',
      };
    }
    match = klog.exec(line);
    if (match !== null) {
      const [, severity, month, day, time, fraction, rest] = match;
      const level = severity === 'E' || severity === 'F' ? 'ERROR' : severity === 'W' ? 'WARN' : 'INFO';
      const wall = wallClock(`${yearHint}-${month}-${day}`, time ?? '', fraction);
      return { level, time: timeOf(wall, undefined), message: rest ?? '' };
    }
    match = nginxError.exec(line);
    if (match !== null) {
      const [, year, month, day, time, word, rest] = match;
      return {
        level: levelOf(word ?? '') ?? 'UNKNOWN',
        time: timeOf(wallClock(`${year}-${month}-${day}`, time ?? ''), undefined),
        message: rest ?? '',
      };
    }
    match = nginxAccess.exec(line);
    if (match !== null) {
      const [, day, monthName, year, time, zone, status] = match;
      const month = MONTHS.indexOf((monthName ?? '').toLowerCase()) + 1;
      const code = Number(status);
      return {
        level: code >= 500 ? 'ERROR' : code >= 400 ? 'WARN' : 'INFO',
        time: timeOf(wallClock(`${year}-${String(month).padStart(2, '0')}-${day}`, time ?? ''), zone),
        message: line,
      };
    }
    match = redis.exec(line);
    if (match !== null) {
      const [, day, monthName, year, time, millis, mark, rest] = match;
      const month = MONTHS.indexOf((monthName ?? '').toLowerCase()) + 1;
      const level = mark === '#' ? 'WARN' : mark === '*' ? 'INFO' : 'DEBUG';
      const date = `${year}-${String(month).padStart(2, '0')}-${(day ?? '').padStart(2, '0')}`;
      return { level, time: timeOf(wallClock(date, time ?? '', millis), undefined), message: rest ?? '' };
    }
    match = dotnet.exec(line);
    if (match !== null) {
      return { level: levelOf(match[1] ?? '') ?? 'UNKNOWN', time: undefined, message: match[2] ?? '' };
    }
    return undefined;
  };
}

const LEVEL_KEYS = ['severity', 'level', 'lvl', 'levelname', 'log.level'];
const MESSAGE_KEYS = ['message', 'msg', 'log'];
const TIME_KEYS = ['timestamp', 'time', 'ts', '@timestamp', 'instant'];

/**
 * A JSON object line: its level, time and message fields, and every other field after the message as ` key=value`
 * (strings as they are, other values as JSON). Undefined when the line is not a JSON object or has no level or message.
 */
function parseJsonLine(line: string): LineHeader | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  const levelKey = LEVEL_KEYS.find((key) => typeof record[key] === 'string');
  const messageKey = MESSAGE_KEYS.find((key) => typeof record[key] === 'string');
  if (levelKey === undefined && messageKey === undefined) return undefined;
  const timeKey = TIME_KEYS.find((key) => record[key] !== undefined);
  const parts: string[] = [messageKey === undefined ? '' : String(record[messageKey])];
  for (const [key, field] of Object.entries(record)) {
    if (key === levelKey || key === messageKey || key === timeKey) continue;
    parts.push(`${key}=${typeof field === 'string' ? field : JSON.stringify(field)}`);
  }
  return {
    level: levelKey === undefined ? 'UNKNOWN' : (levelOf(String(record[levelKey])) ?? 'UNKNOWN'),
    time: timeKey === undefined ? undefined : jsonTime(record[timeKey]),
    message: parts.filter((part) => part !== '').join(' '),
  };
}

/** An RFC 3339 string, epoch seconds or milliseconds, or log4j2's `{ epochSecond, nanoOfSecond }`. */
function jsonTime(value: unknown): LineTime | undefined {
  if (typeof value === 'string') {
    const match = new RegExp(`^${ISO_DATE}${ZONE}$`).exec(value);
    if (match === null) return undefined;
    const [, date, time, fraction, zone] = match;
    return timeOf(wallClock(date ?? '', time ?? '', fraction), zone);
  }
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) {
    // NOTE: 1e11 ms is 1973 and 1e11 s is the year 5138: a number above it is milliseconds.
    return { kind: 'instant', ms: Math.round(value > 1e11 ? value : value * 1_000), offset: 'Z' };
  }
  if (typeof value === 'object' && value !== null) {
    const { epochSecond, nanoOfSecond } = value as { epochSecond?: unknown; nanoOfSecond?: unknown };
    if (typeof epochSecond === 'number' && Number.isFinite(epochSecond)) {
      const nanos = typeof nanoOfSecond === 'number' && Number.isFinite(nanoOfSecond) ? nanoOfSecond : 0;
      return { kind: 'instant', ms: epochSecond * 1_000 + Math.floor(nanos / 1e6), offset: 'Z' };
    }
  }
  return undefined;
}
