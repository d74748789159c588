import { describe, expect, it } from 'vitest';
import {
  ZONE_OFFSETS,
  ZONE_OFFSETS_TZ_VERSION,
  ZONE_OFFSETS_WINDOW_START_MINUTES,
} from '../../../../packages/core/src/run/zone-offsets.ts';
import {
  DEFAULT_TIME_ZONE,
  formatZonedIso,
  formatZonedIsoWithIntl,
  isTimeZone,
  zoneOffsetMinutes,
} from '../../../../packages/core/src/run/zoned-time.ts';

const ZONES = ZONE_OFFSETS.split(';')
  .filter((line) => line !== '')
  .map((line) => line.slice(0, line.indexOf(' ')));
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/** ICU's offset in minutes, through one formatter per zone (the test's reference, not the code under test). */
function intlOffsets(zone: string): (epochMs: number) => number {
  const format = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' });
  return (epochMs) => {
    const name = format.formatToParts(epochMs).find((part) => part.type === 'timeZoneName')?.value ?? '';
    const match = /^GMT(?:([+-])(\d{2}):(\d{2}))?$/.exec(name);
    if (match === null) throw new Error(`${zone}: ${name}`);
    return match[1] === undefined ? 0 : (match[1] === '-' ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3]));
  };
}

/** The instants at which the table says `zone` changes its offset, decoded here independently of the code under test. */
function tableChanges(zone: string): number[] {
  const line = ZONE_OFFSETS.split(';').find((candidate) => candidate.startsWith(`${zone} `)) ?? '';
  const entry = line.slice(zone.length + 1);
  if (entry.startsWith('=')) return tableChanges(entry.slice(1));
  const fields = entry.split(' ');
  const changes: number[] = [];
  let at = ZONE_OFFSETS_WINDOW_START_MINUTES;
  for (let index = 1; index < fields.length; index += 2) {
    at += Number.parseInt(fields[index] ?? '', 36);
    changes.push(at * MINUTE);
  }
  return changes;
}

describe('formatZonedIso', () => {
  it.each([
    // America/New_York: EST → EDT on 2026-03-08 at 02:00 local, EDT → EST on 2026-11-01 at 02:00 local.
    ['America/New_York', '2026-03-08T06:59:59Z', '2026-03-08T01:59:59-05:00'],
    ['America/New_York', '2026-03-08T07:00:00Z', '2026-03-08T03:00:00-04:00'],
    ['America/New_York', '2026-11-01T05:59:59Z', '2026-11-01T01:59:59-04:00'],
    ['America/New_York', '2026-11-01T06:00:00Z', '2026-11-01T01:00:00-05:00'],
    // Europe/Berlin: CET → CEST on 2026-03-29 at 01:00 UTC, back on 2026-10-25 at 01:00 UTC.
    ['Europe/Berlin', '2026-03-29T00:59:59Z', '2026-03-29T01:59:59+01:00'],
    ['Europe/Berlin', '2026-03-29T01:00:00Z', '2026-03-29T03:00:00+02:00'],
    ['Europe/Berlin', '2026-10-25T00:59:59Z', '2026-10-25T02:59:59+02:00'],
    ['Europe/Berlin', '2026-10-25T01:00:00Z', '2026-10-25T02:00:00+01:00'],
    ['Asia/Shanghai', '2026-11-30T06:10:00Z', '2026-11-30T14:10:00+08:00'],
    ['Asia/Shanghai', '2026-12-31T16:00:00Z', '2027-01-01T00:00:00+08:00'],
    ['UTC', '2026-11-30T06:10:00.999Z', '2026-11-30T06:10:00+00:00'],
    ['Asia/Kolkata', '2026-11-30T06:10:00Z', '2026-11-30T11:40:00+05:30'],
    ['Asia/Kathmandu', '2026-11-30T06:10:00Z', '2026-11-30T11:55:00+05:45'],
    ['America/St_Johns', '2026-07-01T12:00:00Z', '2026-07-01T09:30:00-02:30'],
    ['Australia/Lord_Howe', '2026-01-01T00:00:00Z', '2026-01-01T11:00:00+11:00'],
    ['Australia/Lord_Howe', '2026-07-01T00:00:00Z', '2026-07-01T10:30:00+10:30'],
  ])('writes %s at %s as %s (hand-checked transition and odd offsets)', (zone, utc, expected) => {
    expect(formatZonedIso(Date.parse(utc), zone)).toBe(expected);
    expect(formatZonedIsoWithIntl(Date.parse(utc), zone)).toBe(expected);
  });

  it('agrees with Intl for every zone it accepts, at every change of offset and between them, 2025 to 2060', () => {
    const mismatches: string[] = [];
    for (const zone of ZONES) {
      const reference = intlOffsets(zone);
      const check = (epochMs: number) => {
        const expected = reference(epochMs);
        if (zoneOffsetMinutes(epochMs, zone) !== expected)
          mismatches.push(`${zone} ${new Date(epochMs).toISOString()}`);
      };
      for (const change of tableChanges(zone)) {
        check(change - 1);
        check(change);
      }
      // NOTE: between the table's changes, samples find a change the table would have missed (a week and 7 h apart
      // until 2031, then every 61 days).
      for (let at = Date.UTC(2025, 0, 1, 3); at < Date.UTC(2031, 0, 1); at += 7 * DAY + 7 * 3_600_000) check(at);
      for (let at = Date.UTC(2031, 0, 1, 5); at < Date.UTC(2060, 0, 1); at += 61 * DAY) check(at);
    }
    expect(mismatches.slice(0, 10)).toEqual([]);
    // NOTE: about 250,000 Intl look-ups: seconds on an idle machine, more under load.
  }, 240_000);

  it('formats like Intl around every change of the zones a deployment is most likely to use', () => {
    for (const zone of [
      'America/New_York',
      'Europe/Berlin',
      'Asia/Shanghai',
      'UTC',
      'Europe/London',
      'Australia/Sydney',
    ]) {
      for (const change of [...tableChanges(zone), Date.UTC(2026, 5, 15, 12)]) {
        for (const at of [change - 1_000, change, change + 59_999]) {
          expect(formatZonedIso(at, zone)).toBe(formatZonedIsoWithIntl(at, zone));
        }
      }
    }
  });

  it('falls back to Intl outside the table’s window (before 2025, from 2060 on)', () => {
    for (const utc of [
      '1999-07-01T12:00:00Z',
      '2024-12-31T23:59:59Z',
      '2060-01-01T00:00:00Z',
      '2071-07-01T12:00:00Z',
    ]) {
      expect(zoneOffsetMinutes(Date.parse(utc), 'Europe/Berlin')).toBeNull();
      expect(formatZonedIso(Date.parse(utc), 'Europe/Berlin')).toBe(
        formatZonedIsoWithIntl(Date.parse(utc), 'Europe/Berlin'),
      );
    }
  });

  it('was generated from the tz database of the Node that runs it (regenerate after a Node upgrade)', () => {
    expect(ZONE_OFFSETS_TZ_VERSION).toBe(process.versions.tz);
  });
});

describe('isTimeZone', () => {
  it('accepts the default, canonical zones, links and UTC, each exactly as spelled', () => {
    for (const zone of [DEFAULT_TIME_ZONE, 'America/New_York', 'Europe/Berlin', 'UTC', 'US/Eastern', 'Asia/Calcutta']) {
      expect(isTimeZone(zone)).toBe(true);
    }
    expect(ZONES.length).toBeGreaterThanOrEqual(Intl.supportedValuesOf('timeZone').length);
    for (const zone of Intl.supportedValuesOf('timeZone')) expect(isTimeZone(zone)).toBe(true);
  });

  it.each([
    'Mars/Olympus',
    '+08:00',
    'CST+8',
    '',
    'asia/shanghai',
    'Asia',
    'Asia/Shanghai ',
    ' Asia/Shanghai',
    'Asia/Shanghai\nUTC',
    '=UTC',
    'Asia/Shanghai 1o',
    '../UTC',
  ])('refuses %j', (zone) => {
    expect(isTimeZone(zone)).toBe(false);
  });

  it('refuses a name of 10,000 characters', () => {
    expect(isTimeZone(`Asia/${'A'.repeat(10_000)}`)).toBe(false);
  });

  it('refuses a value that is not a string', () => {
    for (const zone of [undefined, null, 8, {}, ['UTC']]) expect(isTimeZone(zone)).toBe(false);
  });
});
