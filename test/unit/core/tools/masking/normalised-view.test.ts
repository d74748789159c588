import { describe, expect, it } from 'vitest';
import {
  buildNormalisedView,
  isEncodingCharacter,
  isInvisibleAt,
  isInvisibleCharacter,
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

  it('drops astral default-ignorable characters (two units each), each output character pointing at its source', () => {
    const view = buildNormalisedView('1\u{E0031}2\u{E0100}3\u{1D173}4\u{E01EF}5\u3164' + '6\u{E007F}');
    expect(view?.text).toBe('123456');
    expect(view?.sourceStart).toEqual(Uint32Array.from([0, 3, 6, 9, 12, 14]));
    expect(view?.sourceEnd).toEqual(Uint32Array.from([1, 4, 7, 10, 13, 15]));
  });

  it('keeps a lone surrogate and a visible astral character, and drops only whole pairs', () => {
    expect(buildNormalisedView('1\udb40 2')).toBeNull();
    expect(buildNormalisedView('1\udc31 2')).toBeNull();
    expect(buildNormalisedView('1\u{E1000}2')).toBeNull();
    expect(buildNormalisedView('1\u{DFFFF}2')).toBeNull();
    expect(buildNormalisedView('x\udb40')).toBeNull();
    // A lone high surrogate before a unit that is no low surrogate (here a Hangul syllable, U+D7B0) is no tag
    // character, though the code point the two would make falls in the tag block (U+E07B0).
    expect(buildNormalisedView('x\udb43\ud7b0y')).toBeNull();
    // Nor is one before a unit above the low surrogates (U+DB42 then U+E000 would make U+E0C00, a tag-block code).
    expect(buildNormalisedView('x\udb42\ue000y')).toBeNull();
    // A lone surrogate stays one character of the view (the decoder writes it as U+FFFD), still pointing at itself.
    expect(buildNormalisedView('１\udb40')?.text).toBe('1\ufffd');
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
  [0x115f, ''],
  [0x1160, ''],
  [0x17b4, ''],
  [0x17b5, ''],
  [0x180b, ''],
  [0x180f, ''],
  [0x2060, ''],
  [0x2064, ''],
  [0x2065, ''],
  [0x2066, ''],
  [0x206f, ''],
  [0x3164, ''],
  [0xffa0, ''],
  [0xfff0, ''],
  [0xfff8, ''],
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
  0x00ac, 0x00ae, 0x034e, 0x0350, 0x061b, 0x061d, 0x115e, 0x1161, 0x17b3, 0x17b6, 0x180a, 0x1810, 0x200a, 0x2010,
  0x2029, 0x202f, 0x205f, 0x2070, 0x3163, 0x3165, 0xff9f, 0xffa1, 0xffef, 0xfff9, 0xfdff, 0xfe10, 0xfefe, 0xff00,
  0xff0a, 0xff0c, 0xff0f, 0xff1a, 0xff3b, 0xff40, 0xff5b, 0xff5e, 0xff5f,
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

describe('isInvisibleCharacter and isInvisibleAt against Unicode', () => {
  // The oracle: Unicode's Default_Ignorable_Code_Point property (characters a renderer shows as nothing), as the
  // running engine's regular expressions know it.
  const ignorable = /^\p{Default_Ignorable_Code_Point}$/u;

  it('is true for exactly the default-ignorable characters of the Basic Multilingual Plane', () => {
    const wrong: string[] = [];
    for (let code = 0; code <= 0xffff; code += 1) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      if (isInvisibleCharacter(code) !== ignorable.test(String.fromCharCode(code))) wrong.push(code.toString(16));
    }
    expect(wrong).toEqual([]);
  });

  // NOTE: not every astral code point (1 M of them take over 30 s under Stryker's instrumentation): every one within
  // 0x1000 of each invisible range (its edges and neighbours), and every 97th of the rest.
  const INVISIBLE_ASTRAL = [
    [0x1bca0, 0x1bca3],
    [0x1d173, 0x1d17a],
    [0xe0000, 0xe0fff],
  ];
  const astralSample = (): number[] => {
    const points = new Set<number>();
    for (const [low = 0, high = 0] of INVISIBLE_ASTRAL) {
      for (let point = low - 0x1000; point <= high + 0x1000; point += 1) points.add(point);
    }
    for (let point = 0x10000; point <= 0x10ffff; point += 97) points.add(point);
    points.add(0x10000);
    points.add(0x10ffff);
    return [...points];
  };

  it('finds every default-ignorable code point at either of its units, and no other', () => {
    const wrong: string[] = [];
    for (const point of astralSample()) {
      const text = `a${String.fromCodePoint(point)}b`;
      const expected = ignorable.test(String.fromCodePoint(point));
      if (isInvisibleAt(text, 1) !== expected || isInvisibleAt(text, 2) !== expected) wrong.push(point.toString(16));
    }
    expect(wrong).toEqual([]);
  });

  it('is false outside the text and for lone surrogates', () => {
    expect(isInvisibleAt('a\u200b', -1)).toBe(false);
    expect(isInvisibleAt('a\u200b', 2)).toBe(false);
    expect(isInvisibleAt('a\u200b', 1)).toBe(true);
    expect(isInvisibleAt('\udb40', 0)).toBe(false);
    expect(isInvisibleAt('\udc31', 0)).toBe(false);
    expect(isInvisibleAt('\udc31\udb40', 0)).toBe(false);
    expect(isInvisibleAt('\udc31\udb40', 1)).toBe(false);
    expect(isInvisibleAt('\udb43\ud7b0', 0)).toBe(false);
    expect(isInvisibleAt('\udb43\ud7b0', 1)).toBe(false);
    expect(isInvisibleAt('\ud7b0\udc00', 1)).toBe(false);
    expect(isInvisibleAt('\udb42\ue000', 0)).toBe(false);
    // Invisible BMP characters above the surrogates are found on their own, with nothing before them.
    expect(isInvisibleAt('\ufeff', 0)).toBe(true);
    expect(isInvisibleAt('a\uffa0', 1)).toBe(true);
  });
});
