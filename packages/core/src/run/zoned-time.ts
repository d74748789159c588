/**
 * The run's "now" as the model reads it: an ISO 8601 time with the offset of the deployment's time zone, so a
 * relative time in the query ("从 14:05 开始") resolves to the right absolute instant.
 *
 * NOTE: offsets come from a table generated from this Node's ICU (`zone-offsets.ts`), not from `Intl`: the first
 * `Intl.DateTimeFormat` with a time zone loads ICU's zone data, about 115 M instructions (≈ 9 ms) of a cold start,
 * and a formatter per run cost ≈ 0.3 ms. Only an instant outside the table's window (before 2025 or from 2060 on:
 * never a run's start, which is now) is formatted with `Intl`.
 */
import { ZONE_OFFSETS, ZONE_OFFSETS_WINDOW_END_MINUTES, ZONE_OFFSETS_WINDOW_START_MINUTES } from './zone-offsets.ts';

/** The time zone when none is configured: the example world's incidents are in China Standard Time. */
export const DEFAULT_TIME_ZONE = 'Asia/Shanghai';

const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+\-/]*$/;

// NOTE: a cache of values derived from the constant table, one entry per zone name asked for (a deployment asks for
// one): finding a zone is a search through the whole table, ≈ 10 µs, and every run's `now` asks.
const zoneEntries = new Map<string, string | null>();

/** The table's line of `zone` after its name, following one `=<zone>` reference; null for an unknown name. */
function zoneEntry(zone: string): string | null {
  const known = zoneEntries.get(zone);
  if (known !== undefined) return known;
  const entry = findZoneEntry(zone);
  // NOTE: only names of the table are kept, so no caller can grow the cache with made-up names.
  if (entry !== null) zoneEntries.set(zone, entry);
  return entry;
}

function findZoneEntry(zone: string): string | null {
  if (!ZONE_NAME.test(zone)) return null;
  const key = `;${zone} `;
  const start = ZONE_OFFSETS.indexOf(key);
  if (start < 0) return null;
  const entry = ZONE_OFFSETS.slice(start + key.length, ZONE_OFFSETS.indexOf(';', start + key.length));
  return entry.startsWith('=') ? findZoneEntry(entry.slice(1)) : entry;
}

/**
 * Whether `zone` is a named time zone of the tz database (an IANA name such as `Asia/Shanghai`, a link such as
 * `US/Eastern`, or `UTC`), spelled exactly. NOTE: a bare offset (`+08:00`) is refused although `Intl` takes it: it
 * has no daylight-saving rules, so it is not a zone.
 */
export function isTimeZone(zone: unknown): zone is string {
  return typeof zone === 'string' && zoneEntry(zone) !== null;
}

/** The UTC offset of `timeZone` at `epochMs` in minutes (east positive), from the table; null outside its window. */
export function zoneOffsetMinutes(epochMs: number, timeZone: string): number | null {
  const minute = Math.floor(epochMs / 60_000);
  if (!(minute >= ZONE_OFFSETS_WINDOW_START_MINUTES && minute < ZONE_OFFSETS_WINDOW_END_MINUTES)) return null;
  const entry = zoneEntry(timeZone);
  if (entry === null) return null;
  const fields = entry.split(' ');
  let offset = Number.parseInt(fields[0] ?? '', 36);
  let changeAt = ZONE_OFFSETS_WINDOW_START_MINUTES;
  for (let index = 1; index + 1 < fields.length; index += 2) {
    changeAt += Number.parseInt(fields[index] ?? '', 36);
    if (minute < changeAt) break;
    offset = Number.parseInt(fields[index + 1] ?? '', 36);
  }
  return Number.isFinite(offset) ? offset : null;
}

const two = (value: number) => String(value).padStart(2, '0');

/**
 * `epochMs` as the wall-clock time of `timeZone` with its offset, to the second: `2026-11-30T14:20:00+08:00`
 * (UTC is written `+00:00`, never `Z`, so every time the model sees has the same shape).
 */
export function formatZonedIso(epochMs: number, timeZone: string): string {
  const offset = zoneOffsetMinutes(epochMs, timeZone);
  if (offset === null) return formatZonedIsoWithIntl(epochMs, timeZone);
  const wall = new Date(epochMs + offset * 60_000);
  const sign = offset < 0 ? '-' : '+';
  const magnitude = Math.abs(offset);
  return (
    `${String(wall.getUTCFullYear()).padStart(4, '0')}-${two(wall.getUTCMonth() + 1)}-${two(wall.getUTCDate())}` +
    `T${two(wall.getUTCHours())}:${two(wall.getUTCMinutes())}:${two(wall.getUTCSeconds())}` +
    `${sign}${two(Math.floor(magnitude / 60))}:${two(magnitude % 60)}`
  );
}

/** The same through `Intl` (ICU): for instants outside the table's window only, and for tests to compare with. */
export function formatZonedIsoWithIntl(epochMs: number, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    timeZoneName: 'longOffset',
  }).formatToParts(new Date(epochMs));
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((entry) => entry.type === type)?.value ?? '';
  // NOTE: `longOffset` names the offset `GMT+08:00`, or just `GMT` when it is zero.
  const offset = part('timeZoneName').replace(/^GMT/, '') || '+00:00';
  return `${part('year')}-${part('month')}-${part('day')}T${part('hour')}:${part('minute')}:${part('second')}${offset}`;
}
