/**
 * One container's log (Cloud-OpsBench's `logs.json` holds one per service, as text or as a list of lines) as log events:
 * each event starts at a line the application wrote with its own header (log-formats.ts), or at a line nothing
 * continues; the lines after it that belong to it (a stack trace, an exception's message, .NET's indented message, a
 * multi-line text written in the same instant) are joined to it. Its time is the container runtime's prefix
 * (`2026-03-12T17:42:40.640390741+08:00 …`, the zone kept), else the application's own (a time without a zone read in
 * the zone the same container's prefixed lines show, else the case's), else its neighbour's.
 * The message is the rest of the line after the time and level, runs of spaces collapsed; in a joined event each run
 * of stack frames becomes one `... N frames` line and a line repeated inside the event is kept once, so the
 * exception chain (`Caused by: …`) stays near the start, where a bounded observation shows it.
 */
import { createHeaderParser, type LineTime, offsetMinutes, type RecordLevel } from './log-formats.ts';

export interface LogEvent {
  /** Epoch milliseconds. */
  time: number;
  /** ISO 8601 with the zone the line was written in, to the millisecond (`2026-03-12T17:42:40.640+08:00`). */
  timestamp: string;
  level: RecordLevel;
  message: string;
}

/** Bounds of one stream: what a hostile or broken log can cost. */
export const CONTAINER_LOG_LIMITS = Object.freeze({
  /** Physical lines read from one stream; the rest are counted as dropped. */
  lines: 200_000,
  /** Characters of one physical line kept. */
  lineChars: 16 * 1024,
  /** Lines joined into one event; later ones are counted, not kept. */
  eventLines: 200,
  /** Characters of one event's message. */
  messageChars: 16 * 1024,
});

export interface ContainerLogOptions {
  /** The zone of the case's prefixed lines (`+08:00`, `Z`): the zone of a time written without one. */
  zone: string;
  /** The year of the case (klog's lines write none). */
  year: number;
  /** A zone this service's current container taught (its `.previous` container's lines have no prefix). */
  learnedZone?: string | undefined;
}

export interface ContainerLog {
  events: LogEvent[];
  /** The zone the application's own times are in, learned from lines that carry both (undefined: none did). */
  learnedZone: string | undefined;
  stats: { lines: number; droppedLines: number; kubectlNotes: number; untimedEvents: number };
}

/** The container runtime's prefix: an RFC 3339 time to the nanosecond with its zone, then a space. */
export const CONTAINER_PREFIX = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})(?: |$)/;
/** Lines kubectl writes into a log it could not fetch: a note of the collection, not the container's output. */
const KUBECTL_NOTE =
  /^(?:Error: )?(?:Defaulted container "|Error from server \(BadRequest\): previous terminated container ")/;
/** A stack frame of Java, .NET or Python, or Java's `... N more`. */
export const STACK_FRAME = /^\s*(?:at [\w$.<>/[\]-]|\.\.\. \d+ (?:more|common frames omitted)|File "[^"]*", line \d+)/;
const EXCEPTION =
  /^(?:[A-Za-z_$][\w$]*\.)+[\w$]*(?:Exception|Error|Throwable|Failure)\b|^[A-Z]\w*(?:Error|Exception)(?::|$)/;
/** Lines of one write (a multi-line message) are microseconds apart in the prefixes; unrelated ones are not. */
const SAME_WRITE_MS = 5;

interface Building {
  time: number | undefined;
  offset: string | undefined;
  level: RecordLevel;
  headed: boolean;
  lastPrefixMs: number | undefined;
  lines: string[];
  seen: Set<string>;
  frames: number;
  inTraceback: boolean;
  dropped: number;
}

/** Parses one container's log into events (see the module's note). Never throws on any input. */
export function parseContainerLog(log: string | readonly unknown[], options: ContainerLogOptions): ContainerLog {
  const parseHeader = createHeaderParser();
  const physical = physicalLines(log);
  const events: (Omit<LogEvent, 'time' | 'timestamp'> & { time: number | undefined; offset: string | undefined })[] =
    [];
  let learnedZone = options.learnedZone;
  let kubectlNotes = 0;
  let current: Building | undefined;

  const flush = () => {
    if (current === undefined) return;
    closeFrames(current);
    const message = current.lines.join('\n') + (current.dropped > 0 ? `\n... ${current.dropped} more lines` : '');
    if (message.trim() !== '') {
      events.push({
        time: current.time,
        offset: current.offset,
        level: current.level,
        message: message.slice(0, CONTAINER_LOG_LIMITS.messageChars),
      });
    }
    current = undefined;
  };

  for (const raw of physical.lines) {
    const line = raw.length > CONTAINER_LOG_LIMITS.lineChars ? raw.slice(0, CONTAINER_LOG_LIMITS.lineChars) : raw;
    const prefix = CONTAINER_PREFIX.exec(line);
    const prefixMs = prefix === null ? undefined : prefixTime(prefix);
    const prefixOffset = prefix?.[4];
    const rest = prefix === null ? line : line.slice(prefix[0].length);
    if (KUBECTL_NOTE.test(rest)) {
      kubectlNotes += 1;
      continue;
    }
    const header = rest.trim() === '' ? undefined : parseHeader(rest, options.year);
    if (header !== undefined) {
      flush();
      if (prefixMs !== undefined && header.time?.kind === 'naive' && learnedZone === undefined) {
        learnedZone = zoneBetween(prefixMs, header.time.wallMs);
      }
      const own = resolveTime(header.time, learnedZone ?? options.zone);
      current = startEvent(
        prefixMs ?? own?.ms,
        prefixOffset ?? own?.offset,
        header.level,
        true,
        prefixMs,
        collapse(header.message),
      );
      continue;
    }
    if (current !== undefined && continues(current, rest, prefixMs)) {
      append(current, rest);
      if (prefixMs !== undefined) current.lastPrefixMs = prefixMs;
      continue;
    }
    flush();
    if (rest.trim() === '') continue;
    current = startEvent(prefixMs, prefixOffset, inferredLevel(rest), false, prefixMs, collapse(rest));
    current.inTraceback = rest.startsWith('Traceback (most recent call last)');
  }
  flush();

  const timed = fillTimes(events, options.zone);
  return {
    events: timed.events,
    learnedZone,
    stats: {
      lines: physical.lines.length,
      droppedLines: physical.dropped,
      kubectlNotes,
      untimedEvents: timed.untimed,
    },
  };
}

function physicalLines(log: string | readonly unknown[]): { lines: string[]; dropped: number } {
  const all: string[] = [];
  let dropped = 0;
  const items = typeof log === 'string' ? [log] : log;
  for (const item of items) {
    if (typeof item !== 'string') {
      dropped += 1;
      continue;
    }
    for (const line of item.split('\n')) {
      if (all.length >= CONTAINER_LOG_LIMITS.lines) dropped += 1;
      else all.push(line.endsWith('\r') ? line.slice(0, -1) : line);
    }
  }
  return { lines: all, dropped };
}

function prefixTime(match: RegExpExecArray): number | undefined {
  const [, date, time, fraction = '', zone = 'Z'] = match;
  const ms = Date.parse(`${date}T${time}.${`${fraction}000`.slice(0, 3)}${zone}`);
  return Number.isFinite(ms) ? ms : undefined;
}

/** The zone (to the quarter hour) that turns an application's wall clock into the prefix's instant. */
function zoneBetween(prefixMs: number, wallMs: number): string | undefined {
  const minutes = Math.round((wallMs - prefixMs) / 60_000 / 15) * 15;
  if (Math.abs(minutes) > 14 * 60) return undefined;
  if (minutes === 0) return 'Z';
  const sign = minutes < 0 ? '-' : '+';
  const absolute = Math.abs(minutes);
  return `${sign}${String(Math.floor(absolute / 60)).padStart(2, '0')}:${String(absolute % 60).padStart(2, '0')}`;
}

function resolveTime(time: LineTime | undefined, zone: string): { ms: number; offset: string } | undefined {
  if (time === undefined) return undefined;
  if (time.kind === 'instant') return { ms: time.ms, offset: time.offset };
  return { ms: time.wallMs - offsetMinutes(zone) * 60_000, offset: zone };
}

function startEvent(
  time: number | undefined,
  offset: string | undefined,
  level: RecordLevel,
  headed: boolean,
  lastPrefixMs: number | undefined,
  first: string,
): Building {
  return {
    time,
    offset,
    level,
    headed,
    lastPrefixMs,
    lines: [first],
    seen: new Set([first]),
    frames: 0,
    inTraceback: false,
    dropped: 0,
  };
}

/** Whether a line without a header belongs to the event being built. */
function continues(event: Building, rest: string, prefixMs: number | undefined): boolean {
  if (rest.trim() === '' || /^\s/.test(rest) || STACK_FRAME.test(rest) || rest.startsWith('Caused by: ')) return true;
  if (EXCEPTION.test(rest) && (event.headed || event.inTraceback || event.frames > 0)) return true;
  // NOTE: a multi-line message written at once (an exception's text, a banner) shares its write's instant.
  return (
    event.headed &&
    prefixMs !== undefined &&
    event.lastPrefixMs !== undefined &&
    prefixMs - event.lastPrefixMs <= SAME_WRITE_MS
  );
}

function append(event: Building, rest: string): void {
  if (rest.trim() === '') return;
  if (STACK_FRAME.test(rest) || (event.inTraceback && /^\s{4,}\S/.test(rest) && event.frames > 0)) {
    event.frames += 1;
    return;
  }
  closeFrames(event);
  const text = collapse(rest);
  if (event.seen.has(text)) return;
  if (event.lines.length >= CONTAINER_LOG_LIMITS.eventLines) {
    event.dropped += 1;
    return;
  }
  event.seen.add(text);
  event.lines.push(text);
}

function closeFrames(event: Building): void {
  if (event.frames === 0) return;
  event.lines.push(`... ${event.frames} frame${event.frames === 1 ? '' : 's'}`);
  event.frames = 0;
}

/** Runs of spaces and tabs become one space; the ends are trimmed. */
function collapse(text: string): string {
  return text.replace(/[ \t]{2,}/g, ' ').trim();
}

/** A line without a header that starts an exception or a traceback is an error; any other line has no level. */
function inferredLevel(rest: string): RecordLevel {
  if (rest.startsWith('Traceback (most recent call last)') || EXCEPTION.test(rest) || rest.startsWith('panic: ')) {
    return 'ERROR';
  }
  return 'UNKNOWN';
}

/**
 * Gives every event a time: an untimed event takes the time of the event before it, leading ones that of the first
 * timed event. A stream with no time at all keeps none (`untimed` counts them; the importer places them).
 */
function fillTimes(
  events: readonly (Omit<LogEvent, 'time' | 'timestamp'> & { time: number | undefined; offset: string | undefined })[],
  zone: string,
): { events: LogEvent[]; untimed: number } {
  const firstTimed = events.find((event) => event.time !== undefined);
  let untimed = 0;
  let previous = firstTimed === undefined ? undefined : { time: firstTimed.time as number, offset: firstTimed.offset };
  const result: LogEvent[] = [];
  for (const event of events) {
    if (event.time === undefined) untimed += 1;
    const time = event.time ?? previous?.time;
    const offset = event.time === undefined ? previous?.offset : event.offset;
    if (event.time !== undefined) previous = { time: event.time, offset: event.offset };
    result.push({
      time: time ?? Number.NaN,
      timestamp: time === undefined ? '' : formatInstant(time, offset ?? zone),
      level: event.level,
      message: event.message,
    });
  }
  return { events: result, untimed };
}

/** `2026-03-12T17:42:40.640+08:00`: the instant as the wall clock of `offset` shows it, to the millisecond. */
export function formatInstant(ms: number, offset: string): string {
  const shifted = new Date(ms + offsetMinutes(offset) * 60_000).toISOString();
  return `${shifted.slice(0, 23)}${offset === 'Z' ? 'Z' : offset}`;
}
