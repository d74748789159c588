import { describe, expect, it } from 'vitest';
import {
  findProtectedSpans,
  type ProtectedKinds,
  withoutDetectedIdentifiers,
} from '../../../../../packages/core/src/tools/masking/protected-spans.ts';

const KINDS: ProtectedKinds = { masked: new Set(['phone', 'depth']), redacted: new Set(['password']) };
const held = new Set(['<phone:abcde>']);
const find = (text: string) => findProtectedSpans(text, (token) => held.has(token), KINDS);

describe('findProtectedSpans', () => {
  it('protects a pseudonym the run holds and markers of known kinds, with their exact spans', () => {
    expect(find('a <phone:abcde> [MASKED:phone] [REDACTED:password] [MASKED:depth]')).toEqual([
      { start: 2, end: 15, kind: '' },
      { start: 16, end: 30, kind: '' },
      { start: 31, end: 50, kind: '' },
      { start: 51, end: 65, kind: '' },
    ]);
  });

  it('protects nothing else shaped like one', () => {
    expect(find('<phone:zzzzz> <x_13912345678:aaaaa> [MASKED:13912345678] [REDACTED:hunter2]')).toEqual([]);
    expect(find('[MASKED:password] [REDACTED:phone] [masked:phone] [MASKED:phone ]')).toEqual([]);
  });

  it('protects a held pseudonym in a text without `[`, and a marker in a text without `<`', () => {
    expect(find('user <phone:abcde>')).toEqual([{ start: 5, end: 18, kind: '' }]);
    expect(find('[REDACTED:password]')).toEqual([{ start: 0, end: 19, kind: '' }]);
  });

  it('finds nothing in a text without `<` or `[`', () => {
    expect(find('phone:abcde MASKED:phone')).toEqual([]);
  });
});

describe('withoutDetectedIdentifiers', () => {
  const spans = [
    { start: 0, end: 5, kind: '' },
    { start: 10, end: 15, kind: '' },
    { start: 20, end: 25, kind: '' },
  ];

  it('drops a span a detected identifier overlaps, even by one character, and keeps those it only touches', () => {
    const identifiers = [
      { start: 5, end: 10, kind: 'phone' },
      { start: 14, end: 16, kind: 'email' },
    ];
    expect(withoutDetectedIdentifiers(spans, identifiers, 30)).toEqual([spans[0], spans[2]]);
  });

  it('drops a span whose last character, the text’s last, is part of a detected identifier', () => {
    const last = { start: 5, end: 10, kind: '' };
    expect(withoutDetectedIdentifiers([last], [{ start: 9, end: 10, kind: 'phone' }], 10)).toEqual([]);
  });

  it('returns no span when there is none, whatever was detected', () => {
    expect(withoutDetectedIdentifiers([], [{ start: 0, end: 5, kind: 'phone' }], 10)).toEqual([]);
  });

  it('keeps every span when nothing was detected, and returns a copy', () => {
    const kept = withoutDetectedIdentifiers(spans, [], 30);
    expect(kept).toEqual(spans);
    expect(kept).not.toBe(spans);
  });
});
