import { describe, expect, it } from 'vitest';
import { buildZoneTable, compactZone } from '../../../scripts/generate-zone-offsets.ts';

describe('compactZone', () => {
  it('writes each distinct change once and their sequence as letters when a zone repeats its changes', () => {
    expect(compactZone('1o 2pto 3c 6hc0 1o 4r40 3c 6hc0 1o 4r40 3c 6p40 1o')).toBe(
      '1o|2pto 3c,6hc0 1o,4r40 3c,6p40 1o|abcbcd',
    );
  });

  it('keeps the plain text when letters would not be shorter', () => {
    expect(compactZone('50')).toBe('50');
    expect(compactZone('1o 1mzc 0 1ao0 1o')).toBe('1o 1mzc 0 1ao0 1o');
  });

  it('keeps the plain text when a zone has more distinct changes than letters', () => {
    const changes = Array.from(
      { length: 27 },
      (_, index) => `${(1000 + index).toString(36)} ${index % 2 ? '3c' : '50'}`,
    );
    const encoded = ['3c', ...changes, ...changes].join(' ');
    expect(compactZone(encoded)).toBe(encoded);
  });
});

describe('buildZoneTable', () => {
  it('writes each region once and its zones after it, every entry ending with a semicolon', () => {
    const table = buildZoneTable([
      ['Africa/Abidjan', '0'],
      ['Africa/Ceuta', '1o|2pto 3c|a'],
      ['CET', '=Africa/Ceuta'],
      ['Europe/Berlin', '=Africa/Ceuta'],
    ]);
    expect(table.replaceAll('\\\n', '')).toBe(
      '#Africa/;Abidjan 0;Ceuta 1o|2pto 3c|a;#;CET =Africa/Ceuta;#Europe/;Berlin =Africa/Ceuta;#',
    );
  });
});
