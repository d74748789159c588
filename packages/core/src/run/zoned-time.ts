/**
 * The run's "now" as the model reads it: an ISO 8601 time with the offset of the deployment's time zone, so a
 * relative time in the query ("从 14:05 开始") resolves to the right absolute instant.
 */

/** The time zone when none is configured: the example world's incidents are in China Standard Time. */
export const DEFAULT_TIME_ZONE = 'Asia/Shanghai';

/**
 * Whether `zone` is a named time zone `Intl` knows (an IANA name such as `Asia/Shanghai`, or `UTC`). NOTE: a bare
 * offset (`+08:00`) is refused although `Intl` takes it: it has no daylight-saving rules, so it is not a zone.
 */
export function isTimeZone(zone: unknown): zone is string {
  if (typeof zone !== 'string' || !/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(zone)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * `epochMs` as the wall-clock time of `timeZone` with its offset, to the second: `2026-11-30T14:20:00+08:00`
 * (UTC is written `+00:00`, never `Z`, so every time the model sees has the same shape).
 */
export function formatZonedIso(epochMs: number, timeZone: string): string {
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
