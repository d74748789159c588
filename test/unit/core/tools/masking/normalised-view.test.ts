import { describe, expect, it } from 'vitest';
import {
  buildNormalisedView,
  isEncodingCharacter,
} from '../../../../../packages/core/src/tools/masking/normalised-view.ts';

const spans = (view: ReturnType<typeof buildNormalisedView>) =>
  view === null ? null : [...view.text].map((_, index) => [view.sourceStart[index], view.sourceEnd[index]]);

describe('buildNormalisedView', () => {
  it('is null for a text it would not change, without building anything', () => {
    expect(buildNormalisedView('')).toBeNull();
    expect(buildNormalisedView('plain ASCII 13912345678 a@b.cn')).toBeNull();
    expect(buildNormalisedView('cpu 95% 50%2 %zz %3A30 12%3a30 %E4%B8%AD end%')).toBeNull();
    expect(buildNormalisedView('电话：无，好（是）「否」')).toBeNull();
  });

  it('maps full-width digits, letters and the punctuation of values to ASCII, one character each', () => {
    const view = buildNormalisedView('x１３＠ｂ．ｃｎ＋－＿');
    expect(view?.text).toBe('x13@b.cn+-_');
    expect(spans(view)).toEqual(Array.from({ length: 11 }, (_, index) => [index, index + 1]));
  });

  it('keeps the full-width colon, comma and brackets as they are (never `::aa` from `：：ａａ`)', () => {
    expect(buildNormalisedView('：：ａａ，（）')?.text).toBe('：：aa，（）');
  });

  it('decodes one layer of %40, %2E, %2B, %2D, %5F and %20 (either case), each from three characters', () => {
    const view = buildNormalisedView('a%40b%2ecn%2B%2d%5F%20x');
    expect(view?.text).toBe('a@b.cn+-_ x');
    expect(spans(view)?.slice(0, 3)).toEqual([
      [0, 1],
      [1, 4],
      [4, 5],
    ]);
    expect(buildNormalisedView('a%2540b')).toBeNull();
    expect(buildNormalisedView('a%41%31')).toBeNull();
    expect(buildNormalisedView('tail %4')).toBeNull();
  });

  it('drops invisible characters, each output character still pointing at its own source', () => {
    const view = buildNormalisedView('1\u200b2\u00ad3\ufeff4\u202e5\u2066\ufe0f6');
    expect(view?.text).toBe('123456');
    expect(view?.sourceStart).toEqual(Uint32Array.from([0, 2, 4, 6, 8, 11]));
    expect(view?.sourceEnd).toEqual(Uint32Array.from([1, 3, 5, 7, 9, 12]));
  });

  it('keeps other non-ASCII text and surrogate pairs as they are', () => {
    expect(buildNormalisedView('用户１ 😀 é')?.text).toBe('用户1 😀 é');
  });

  it('builds the view of a long text in one pass (linear)', () => {
    const text = '１３９\u200b'.repeat(50_000);
    const view = buildNormalisedView(text);
    expect(view?.text.length).toBe(150_000);
    expect(view?.sourceEnd[149_999]).toBe(199_999);
  });
});

describe('isEncodingCharacter', () => {
  it('is true for the characters a value is encoded with, false for text around values', () => {
    for (const character of ['１', 'Ａ', 'ｚ', '＠', '．', '＿', '\u200b', '\u00ad', '\ufeff', '\ufe0f']) {
      expect(isEncodingCharacter(character.charCodeAt(0)), character).toBe(true);
    }
    for (const character of ['：', '，', '（', '用', ' ', 'a', '%', '\u3000']) {
      expect(isEncodingCharacter(character.charCodeAt(0)), character).toBe(false);
    }
  });
});

// NOTE: each range of characters a value can be encoded with, by its first and last character, next to the ordinary
// characters on either side of it: a range one character too short lets a value split by that character through.
const ENCODING_EDGES: readonly [number, string][] = [
  [0x00ad, ''],
  [0x034f, ''],
  [0x061c, ''],
  [0x180e, ''],
  [0x200b, ''],
  [0x200f, ''],
  [0x202a, ''],
  [0x202e, ''],
  [0x2060, ''],
  [0x2064, ''],
  [0x2066, ''],
  [0x206f, ''],
  [0xfe00, ''],
  [0xfe0f, ''],
  [0xfeff, ''],
  [0xff0b, '+'],
  [0xff0d, '-'],
  [0xff0e, '.'],
  [0xff10, '0'],
  [0xff19, '9'],
  [0xff20, '@'],
  [0xff21, 'A'],
  [0xff3a, 'Z'],
  [0xff3f, '_'],
  [0xff41, 'a'],
  [0xff5a, 'z'],
];
const ORDINARY_NEIGHBOURS: readonly number[] = [
  0x00ac, 0x00ae, 0x034e, 0x0350, 0x061b, 0x061d, 0x180d, 0x180f, 0x200a, 0x2010, 0x2029, 0x202f, 0x205f, 0x2065,
  0x2070, 0xfdff, 0xfe10, 0xfefe, 0xff00, 0xff0a, 0xff0c, 0xff0f, 0xff1a, 0xff3b, 0xff40, 0xff5b, 0xff5e, 0xff5f,
];
const hex = (code: number) => `U+${code.toString(16).padStart(4, '0')}`;

describe('buildNormalisedView at the edges of its ranges', () => {
  it.each(ENCODING_EDGES.map(([code, ascii]) => [hex(code), code, ascii] as const))(
    'undoes %s between two letters, each output character pointing at its own source',
    (_name, code, ascii) => {
      const view = buildNormalisedView(`a${String.fromCharCode(code)}b`);
      expect(view?.text).toBe(`a${ascii}b`);
      expect(spans(view)).toEqual(
        ascii === ''
          ? [
              [0, 1],
              [2, 3],
            ]
          : [
              [0, 1],
              [1, 2],
              [2, 3],
            ],
      );
    },
  );

  it.each(ORDINARY_NEIGHBOURS.map((code) => [hex(code), code] as const))(
    'leaves the ordinary character %s next to a range alone',
    (_name, code) => {
      expect(buildNormalisedView(`a${String.fromCharCode(code)}b`)).toBeNull();
    },
  );

  it('decodes the lower-case escape of the underscore as the upper-case one', () => {
    expect(buildNormalisedView('a%5fb%2bc')?.text).toBe('a_b+c');
  });

  it.each(['%30', '%39', '%41', '%5A', '%5a', '%61', '%7A', '%7a'])(
    'never decodes %s: an escaped letter or digit is not the punctuation of a value',
    (percentEscape) => {
      expect(buildNormalisedView(`a${percentEscape}b`)).toBeNull();
    },
  );

  // Each would decode to a value's punctuation if a non-hex character were read as a hex digit (`%6z` as `_`, `%;0`
  // as `@` with `;` read as 4…).
  it.each(['%6z', '%6', '%2W', '%2w', '%3g', '%4v', '%Y0', '%[0', '%G0', '%;0', '%<F'])(
    'leaves the malformed escape %s as it is',
    (percentEscape) => {
      expect(buildNormalisedView(`a${percentEscape}`)).toBeNull();
    },
  );
});

describe('isEncodingCharacter at the edges of its ranges', () => {
  it('is true for the first and last character of each range and false for its neighbours', () => {
    for (const [code] of ENCODING_EDGES) expect(isEncodingCharacter(code), hex(code)).toBe(true);
    for (const code of ORDINARY_NEIGHBOURS) expect(isEncodingCharacter(code), hex(code)).toBe(false);
  });
});
