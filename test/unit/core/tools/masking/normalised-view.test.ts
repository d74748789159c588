// NOTE: over 300 lines on purpose: the normalised view's cases, each encoding at the edges of its Unicode ranges; a
// masking module under mutation testing, whose cases are listed by this file in test/mutation/mutation-targets.ts.
import { describe, expect, it } from 'vitest';
import {
  buildNormalisedView,
  decimalDigitClass,
  digitValue,
  isEncodingAt,
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
    expect(buildNormalisedView('a%41%31')?.text).toBe('aA1');
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
    for (const character of [
      '１',
      'Ａ',
      'ｚ',
      '＠',
      '．',
      '＿',
      '\u200b',
      '\u00ad',
      '\ufeff',
      '\ufe0f',
      '\u3000',
      '٣',
      '¹',
    ]) {
      expect(isEncodingCharacter(character.charCodeAt(0)), character).toBe(true);
    }
    for (const character of ['：', '，', '、', '（', '用', ' ', 'a', '%', '&', '⑴']) {
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
  [0x00a0, ' '],
  [0x1680, ' '],
  [0x2000, ' '],
  [0x200a, ' '],
  [0x202f, ' '],
  [0x205f, ' '],
  [0x3000, ' '],
  [0x2010, '-'],
  [0x2015, '-'],
  [0x2212, '-'],
  [0xfe58, '-'],
  [0xfe63, '-'],
  [0xfe62, '+'],
  [0xfe6b, '@'],
  [0x2024, '.'],
  [0x3002, '.'],
  [0xfe52, '.'],
  [0xff61, '.'],
  [0x0660, '0'],
  [0x0669, '9'],
  [0x1810, '0'],
  [0x1819, '9'],
  [0xabf9, '9'],
  [0x00b2, '2'],
  [0x00b3, '3'],
  [0x00b9, '1'],
  [0x2070, '0'],
  [0x2089, '9'],
  [0x2460, '1'],
  [0x24ea, '0'],
  [0x24d0, 'a'],
  [0x2776, '1'],
  [0x277e, '9'],
  [0x2781, '2'],
  [0x2793, '10'],
  [0x24eb, '11'],
  [0x24f4, '20'],
  [0x24f5, '1'],
  [0x24fe, '10'],
  [0x24ff, '0'],
  [0x207a, '+'],
  [0x209c, 't'],
  [0x2488, '1.'],
  [0x249b, '20.'],
  [0x24b6, 'A'],
  [0x3251, '21'],
  [0x325f, '35'],
  [0x32b1, '36'],
  [0x32bf, '50'],
];
const ORDINARY_NEIGHBOURS: readonly number[] = [
  0x00ac,
  0x00ae,
  0x034e,
  0x0350,
  0x061b,
  0x061d,
  0x115e,
  0x1161,
  0x17b3,
  0x17b6,
  0x180a,
  0x181a,
  0x2016,
  0x2029,
  0x2030,
  0x205e,
  0x3163,
  0x3165,
  0xff9f,
  0xffa1,
  0xffef,
  0xfff9,
  0xfdff,
  0xfe10,
  0xfefe,
  0xff00,
  0xff0a,
  0xff0c,
  0xff0f,
  0xff1a,
  0xff3b,
  0xff40,
  0xff5b,
  0xff5e,
  0xff5f,
  0x009f,
  0x00b1,
  0x00b4,
  0x00b8,
  0x00ba,
  0x065f,
  0x066a,
  0x1ffe,
  0x2023,
  0x2025,
  0x2211,
  0x2213,
  0x20a0,
  0x245f,
  0x2500,
  0x2775,
  0x2794,
  0x2ffb,
  0x3001,
  0x3003,
  0x3250,
  0x3260,
  0x32b0,
  0xabf0 - 1,
  0xabfa,
  0xfe51,
  0xfe54,
  0xfe57,
  0xfe59,
  0xfe61,
  0xfe64,
  0xfe6a,
  0xff60,
  0xff62,
];
const hex = (code: number) => `U+${code.toString(16).padStart(4, '0')}`;

describe('buildNormalisedView at the edges of its ranges', () => {
  it.each(ENCODING_EDGES.map(([code, ascii]) => [hex(code), code, ascii] as const))(
    'undoes %s between two letters, each output character pointing at its own source',
    (_name, code, ascii) => {
      const view = buildNormalisedView(`a${String.fromCharCode(code)}b`);
      expect(view?.text).toBe(`a${ascii}b`);
      // Each character it reads as (none, one, or the two of `⓫`) points at the one character it came from.
      expect(spans(view)).toEqual([[0, 1], ...[...ascii].map(() => [1, 2]), [2, 3]]);
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

  it.each([
    ['%30', '0'],
    ['%39', '9'],
    ['%41', 'A'],
    ['%5A', 'Z'],
    ['%5a', 'Z'],
    ['%61', 'a'],
    ['%7A', 'z'],
    ['%7a', 'z'],
  ])('decodes %s as the letter or digit a value is written with (`%31%33%38…`)', (percentEscape, ascii) => {
    expect(buildNormalisedView(`a${percentEscape}b`)?.text).toBe(`a${ascii}b`);
  });

  it.each(['%2F', '%3A', '%3a', '%7B', '%7E', '%60', '%2C', '%E4%B8%AD'])(
    'leaves %s as it is where it stands for nothing a value holds',
    (percentEscape) => {
      expect(buildNormalisedView(`a${percentEscape}`)).toBeNull();
    },
  );

  // Each would decode to a value's punctuation if a non-hex character were read as a hex digit (`%6z` as `_`, `%;0`
  // as `@` with `;` read as 4…).
  it.each(['%6z', '%6', '%2W', '%2w', '%3g', '%4v', '%Y0', '%[0', '%G0', '%;0', '%<F', '%6g', '%`0', '%@0'])(
    'leaves the malformed escape %s as it is, also where the view is built for another character',
    (percentEscape) => {
      expect(buildNormalisedView(`a${percentEscape}`)).toBeNull();
      expect(buildNormalisedView(`a${percentEscape}１`)?.text).toBe(`a${percentEscape}1`);
    },
  );

  it.each([
    ['%6a', 'j'],
    ['%6f', 'o'],
    ['%4A', 'J'],
    ['%4F', 'O'],
    ['%3a', '%3a'],
    ['%2f', '%2f'],
  ])('reads %s as %s beside a full-width digit', (percentEscape, read) => {
    expect(buildNormalisedView(`${percentEscape}１`)?.text).toBe(`${read}1`);
  });
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

describe('digitValue against Unicode', () => {
  // The oracle: Unicode's decimal digits (`\p{Nd}`) as this engine knows them; a digit's value is its place in its
  // set of ten (Unicode encodes every set as ten code points in a row, zero first).
  it('gives every decimal digit but the ASCII ones its value, and -1 to every other code point', () => {
    const wrong: string[] = [];
    let runStart = -2;
    let previous = -2;
    for (let point = 0x80; point <= 0x10ffff; point += 1) {
      if (point >= 0xd800 && point <= 0xdfff) continue;
      const isDigit = /\p{Nd}/u.test(String.fromCodePoint(point));
      if (isDigit && previous !== point - 1) runStart = point;
      if (isDigit) previous = point;
      const expected = isDigit ? (point - runStart) % 10 : -1;
      if (digitValue(point) !== expected) wrong.push(`U+${point.toString(16)}: ${digitValue(point)} not ${expected}`);
    }
    expect(wrong).toEqual([]);
  });

  it('decimalDigitClass is \\p{Nd} exactly, ASCII digits included, over every code point', () => {
    const built = new RegExp(`^[${decimalDigitClass()}]$`, 'u');
    const wrong: string[] = [];
    for (let point = 0; point <= 0x10ffff; point += 1) {
      if (point >= 0xd800 && point <= 0xdfff) continue;
      const character = String.fromCodePoint(point);
      if (built.test(character) !== /^\p{Nd}$/u.test(character)) wrong.push(`U+${point.toString(16)}`);
    }
    expect(wrong).toEqual([]);
  });

  it('is -1 below the first zero and for the ASCII digits (the view leaves those as they are)', () => {
    expect(digitValue(0x30)).toBe(-1);
    expect(digitValue(0x39)).toBe(-1);
    expect(digitValue(0)).toBe(-1);
    expect(digitValue(0x10ffff)).toBe(-1);
  });
});

describe('buildNormalisedView: astral digits and letters, and HTML character references', () => {
  it('reads a mathematical digit (two units) as one ASCII digit pointing at both units', () => {
    const view = buildNormalisedView('a\u{1d7cf}\u{1d7d0}b');
    expect(view?.text).toBe('a12b');
    expect(spans(view)).toEqual([
      [0, 1],
      [1, 3],
      [3, 5],
      [5, 6],
    ]);
    expect(buildNormalisedView('x\u{1d41a}y')?.text).toBe('xay');
    expect(buildNormalisedView('x\u{1d400}y')?.text).toBe('xAy');
    // Past the mathematical block, compatibility forms NFKC would read (`🄀` is `0.`, `🄰` is `A`) are left alone.
    expect(buildNormalisedView('a\u{1f100}b')).toBeNull();
    expect(buildNormalisedView('a\u{1f130}b')).toBeNull();
    // The last mathematical digit, and the characters on either side of the mathematical block.
    expect(buildNormalisedView('a\u{1d7ff}')?.text).toBe('a9');
    expect(buildNormalisedView('a\u{1d3ff}b')).toBeNull();
    expect(buildNormalisedView('a\u{1d800}b')).toBeNull();
  });

  it('keeps astral characters no reader reads as part of a value, and lone surrogates', () => {
    expect(buildNormalisedView('a\u{1f600}b')).toBeNull();
    expect(buildNormalisedView('a\ud835b')).toBeNull();
    expect(buildNormalisedView('a\udfcfb')).toBeNull();
  });

  it.each([
    ['&#64;', '@'],
    ['&#064;', '@'],
    ['&#x40;', '@'],
    ['&#X40;', '@'],
    ['&#49;', '1'],
    ['&#65297;', '1'],
    ['&#x1D7CF;', '1'],
    ['&#1633;', '1'],
    ['&#32;', ' '],
    ['&#160;', ' '],
    ['&#8211;', '-'],
    ['&commat;', '@'],
    ['&period;', '.'],
    ['&plus;', '+'],
    ['&minus;', '-'],
    ['&hyphen;', '-'],
    ['&dash;', '-'],
    ['&lowbar;', '_'],
    ['&nbsp;', ' '],
  ])('reads the reference %s as %s, from all its characters', (reference, ascii) => {
    const view = buildNormalisedView(`a${reference}b`);
    expect(view?.text).toBe(`a${ascii}b`);
    expect(spans(view)?.[1]).toEqual([1, 1 + reference.length]);
  });

  it.each([
    '&#58;',
    '&#x3A;',
    '&#169;',
    '&amp;',
    '&lt;',
    '&#;',
    '&#x;',
    '&#12345678;',
    '&#x110000;',
    '&#1114112;',
    '&#64',
    '&commat',
    '&#xG0;',
  ])('leaves %s as it is: no value character, or no reference', (text) => {
    expect(buildNormalisedView(`a${text}b`)).toBeNull();
  });
});

describe('isEncodingAt', () => {
  it('is true at either unit of an astral digit or letter a reader reads, and of an invisible one', () => {
    const text = 'a\u{1d7cf}\u{e0031}\u{1f600}\ud835b';
    expect([...Array(text.length).keys()].map((index) => isEncodingAt(text, index))).toEqual([
      false,
      true,
      true,
      true,
      true,
      false,
      false,
      false,
      false,
    ]);
  });

  it('reads a low surrogate as part of a pair only after a high one, and the pair at either end of the low range', () => {
    expect(isEncodingAt('\u{1d7cf}', 1)).toBe(true);
    expect(isEncodingAt('\u{1d400}', 1)).toBe(true);
    expect(isEncodingAt('\u{1d7ff}', 1)).toBe(true);
    // A lone high surrogate before an encoded character, and encoded characters before a lone low one.
    expect(isEncodingAt('\ud835１', 1)).toBe(true);
    expect(isEncodingAt('\ud835١', 1)).toBe(true);
    expect(isEncodingAt('١\udfcf', 1)).toBe(false);
    expect(isEncodingAt('１\udfcf', 1)).toBe(false);
  });

  it('follows isEncodingCharacter for every other unit, and is false outside the text', () => {
    expect(isEncodingAt('a١\u3000 ', 1)).toBe(true);
    expect(isEncodingAt('a١\u3000 ', 2)).toBe(true);
    expect(isEncodingAt('a١\u3000 ', 3)).toBe(false);
    expect(isEncodingAt('a', 5)).toBe(false);
    expect(isEncodingAt('\udfcf', 0)).toBe(false);
  });
});

describe('buildNormalisedView: separators, dashes and dots only between two letters or digits', () => {
  it.each([
    ['a no-break space', '\u00a0', ' '],
    ['an ideographic space', '\u3000', ' '],
    ['an en dash', '\u2013', '-'],
    ['an ideographic full stop', '\u3002', '.'],
  ])(
    'builds a view for %s only between two ASCII letters or digits, none beside CJK characters',
    (_, character, ascii) => {
      expect(buildNormalisedView(`用${character}户`)).toBeNull();
      // A word that ends a sentence (`timeout。`) or one that starts it: nothing a value holds on the other side.
      expect(buildNormalisedView(`x${character}户`)).toBeNull();
      expect(buildNormalisedView(`用${character}9`)).toBeNull();
      expect(buildNormalisedView(`x${character}9`)?.text).toBe(`x${ascii}9`);
    },
  );

  it('builds a view for any other encoded character between CJK characters (`＠`, `１`, a superscript)', () => {
    expect(buildNormalisedView('用＠户')?.text).toBe('用@户');
    expect(buildNormalisedView('用１户')?.text).toBe('用1户');
    expect(buildNormalisedView('用¹户')?.text).toBe('用1户');
  });

  it('reads a CJK ideograph as itself, at the edges of the block the shortcut skips', () => {
    expect(buildNormalisedView('\u3400\u9fff１')?.text).toBe('\u3400\u9fff1');
    expect(buildNormalisedView('\u33ff\ua000')).toBeNull();
  });
});
