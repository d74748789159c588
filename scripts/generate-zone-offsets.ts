/**
 * `node scripts/generate-zone-offsets.ts`: writes `packages/core/src/run/zone-offsets.ts`, the UTC offsets of every
 * time zone this Node's ICU knows, as transitions between {@link WINDOW_START} and {@link WINDOW_END}. The Diagnose
 * function then reads its zone's offset from a string instead of loading ICU's time-zone data at cold start (≈ 115 M
 * instructions). Run it again after upgrading Node (its ICU carries the tz database: `process.versions.tz`);
 * `test/unit/run/zoned-time.test.ts` compares the table with `Intl` for every zone, so a stale table fails there.
 */
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** 2025-01-01T00:00Z and 2060-01-01T00:00Z, in minutes since the epoch. */
export const WINDOW_START = Date.UTC(2025, 0, 1) / 60_000;
export const WINDOW_END = Date.UTC(2060, 0, 1) / 60_000;
const OUTPUT = new URL('../packages/core/src/run/zone-offsets.ts', import.meta.url);
const STEP_MINUTES = 6 * 60;

/** A formatter per zone, reused: the generator calls it a few hundred thousand times. */
function offsetsOf(zone: string): (minutes: number) => number {
  const format = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' });
  return (minutes) => {
    const name = format.formatToParts(new Date(minutes * 60_000)).find((part) => part.type === 'timeZoneName')?.value;
    const match = /^GMT(?:([+-])(\d{2}):(\d{2}))?$/.exec(name ?? '');
    if (match === null) throw new Error(`${zone}: unexpected offset ${name}`);
    if (match[1] === undefined) return 0;
    return (match[1] === '-' ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3]));
  };
}

/** `offset[ minutesSincePrevious offset]…` in base 36: the first offset holds at the window's start. */
export function encodeZone(zone: string): string {
  const offsetAt = offsetsOf(zone);
  const first = offsetAt(WINDOW_START);
  const parts = [first.toString(36)];
  let previous = first;
  let previousAt = WINDOW_START;
  for (let at = WINDOW_START + STEP_MINUTES; at < WINDOW_END + STEP_MINUTES; at += STEP_MINUTES) {
    const offset = offsetAt(at);
    if (offset === previous) continue;
    // The change happened in (at − STEP, at]: find its first minute.
    let low = at - STEP_MINUTES;
    let high = at;
    while (high - low > 1) {
      const middle = Math.floor((low + high) / 2);
      if (offsetAt(middle) === previous) low = middle;
      else high = middle;
    }
    if (high >= WINDOW_END) break;
    parts.push((high - previousAt).toString(36), offsetAt(high).toString(36));
    previous = offsetAt(high);
    previousAt = high;
  }
  return parts.join(' ');
}

/** Every name `Intl` accepts: its canonical zones, UTC, and the tz database's links found in the system's zoneinfo. */
function zoneNames(): string[] {
  const names = new Set([...Intl.supportedValuesOf('timeZone'), 'UTC']);
  const root = '/usr/share/zoneinfo';
  const walk = (directory: string) => {
    for (const entry of readdirSync(directory)) {
      const path = join(directory, entry);
      if (statSync(path).isDirectory()) {
        if (entry !== 'posix' && entry !== 'right') walk(path);
      } else if (/^[A-Z]/.test(entry)) {
        names.add(relative(root, path));
      }
    }
  };
  try {
    walk(root);
  } catch {
    // No system zoneinfo: the canonical names only.
  }
  return [...names]
    .filter((name) => /^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(name))
    .filter((name) => {
      try {
        offsetsOf(name)(WINDOW_START);
        return true;
      } catch {
        return false;
      }
    })
    .sort();
}

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/**
 * {@link encodeZone}'s text made shorter when it repeats: `<offset>|<change>,<change>…|<letters>`, each distinct
 * change (`<minutes since the previous change> <new offset>`) written once and the sequence of changes as one letter
 * each (`a` the first). A zone with daylight saving repeats four or five changes for 35 years: about 130 characters
 * instead of 560. The plain text when it is not longer (no change, or more distinct changes than letters).
 */
export function compactZone(encoded: string): string {
  const fields = encoded.split(' ');
  const changes: string[] = [];
  for (let index = 1; index + 1 < fields.length; index += 2) changes.push(`${fields[index]} ${fields[index + 1]}`);
  const distinct = [...new Set(changes)];
  if (distinct.length > LETTERS.length) return encoded;
  const letters = changes.map((change) => LETTERS[distinct.indexOf(change)]).join('');
  const compact = `${fields[0]}|${distinct.join(',')}|${letters}`;
  return compact.length < encoded.length ? compact : encoded;
}

/**
 * The table's text from each zone's name and entry (in name order): the zones grouped by the region their name starts
 * with (`Europe/`; none for `UTC`), each group `#<region>` followed by its zones as `;<rest of the name> <entry>`, one
 * zone a line, the lines joined by line continuations; every entry ends with `;` and the table with `;#`.
 */
export function buildZoneTable(zones: readonly (readonly [name: string, entry: string])[]): string {
  const regions = new Map<string, string[]>();
  for (const [name, entry] of zones) {
    const region = name.slice(0, name.indexOf('/') + 1);
    const lines = regions.get(region) ?? [];
    lines.push(`;${name.slice(region.length)} ${entry}`);
    regions.set(region, lines);
  }
  const blocks = [...regions].map(([region, lines]) => [`#${region}`, ...lines].join('\\\n'));
  return `${blocks.join(';\\\n')};#`;
}

/** The generated module's text. */
export function zoneOffsetsModule(zones: readonly (readonly [name: string, entry: string])[]): string {
  return `// Generated by \`node scripts/generate-zone-offsets.ts\` from Node ${process.version} (tz ${process.versions.tz}); do not edit.
/**
 * UTC offsets of every named time zone from ${new Date(WINDOW_START * 60_000).toISOString()} to ${new Date(WINDOW_END * 60_000).toISOString()}, grouped by the
 * region their name starts with: \`#<region>\` (\`#Europe/\`; \`#\` for names without one), then one zone a line,
 * \`;<the rest of its name> <entry>\`, the last group ending with \`;#\`. An entry is
 * \`<offset at the start>[ <minutes since the previous change> <new offset>]…\` in base 36 (offsets in minutes);
 * or, when shorter, \`<offset at the start>|<change>,<change>…|<letters>\`, each distinct change
 * (\`<minutes since the previous change> <new offset>\`) written once and their sequence as letters (\`a\` the first);
 * or \`=<another zone's full name>\` when both change at the same instants to the same offsets.
 * NOTE: the letters and the regions written once keep the table at ≈ 13 KB instead of 30 KB: every function that
 * checks a time zone parses this string at cold start (BENCHMARKS.md, issue 37).
 * NOTE: a plain string (its lines joined by line continuations), not a template: a template keeps a raw copy of its
 * text beside the cooked one and is scanned slower, ≈ 1 M instructions more at every cold start (BENCHMARKS.md).
 * NOTE: one generated file of data, over 300 lines on purpose (a line a zone): the Diagnose function reads it instead
 * of ICU, whose first time-zone formatter costs ≈ 9 ms at cold start (BENCHMARKS.md); nothing in it is code to split.
 */
export const ZONE_OFFSETS_TZ_VERSION = '${process.versions.tz}';
export const ZONE_OFFSETS_WINDOW_START_MINUTES = ${WINDOW_START};
export const ZONE_OFFSETS_WINDOW_END_MINUTES = ${WINDOW_END};
export const ZONE_OFFSETS =
  '\\
${buildZoneTable(zones)}';
`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const zones: [string, string][] = [];
  const firstWith = new Map<string, string>();
  for (const zone of zoneNames()) {
    const encoded = encodeZone(zone);
    const same = firstWith.get(encoded);
    // NOTE: a zone with the same transitions as an earlier one names it (`=Europe/Berlin`) when that is shorter: one
    // level, never a chain (the zone named always holds its own transitions).
    if (same === undefined) firstWith.set(encoded, zone);
    const compact = compactZone(encoded);
    zones.push([zone, same === undefined || compact.length <= same.length + 1 ? compact : `=${same}`]);
  }
  writeFileSync(OUTPUT, zoneOffsetsModule(zones));
  console.log(`wrote ${zones.length} zones (tz ${process.versions.tz}) into ${OUTPUT.pathname}`);
}
