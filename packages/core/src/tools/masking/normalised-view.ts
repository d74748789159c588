/**
 * The normalised view of a text (issue 32, item 8): what a reader sees in it, for the detectors, with each of
 * its characters mapped back to the characters of the original it came from. These encodings are undone:
 * - full-width letters, digits and the punctuation values are made of (`＠．＋－＿`) → ASCII (`１３９…`,
 *   `ａ＠ｂ．ｃｎ`, ordinary in user-typed Chinese text). NOTE: not the full-width colon, comma or brackets every
 *   Chinese sentence has (`电话：`): `：：ａａ` read as `::aa` would be an IPv6 address;
 * - the digits of every other script (Arabic-Indic `١٣٨`, Devanagari, the mathematical digits `𝟏𝟑𝟖`, ...: Unicode's
 *   decimal digits) → ASCII digits, and the compatibility forms a reader reads as digits or letters (superscripts
 *   `¹³⁸`, circled `①③⑧`, `⒈`, mathematical letters `𝐨𝐩𝐬`) → what Unicode's compatibility normalisation (NFKC)
 *   makes of them;
 * - Unicode's spaces (no-break, narrow, figure, thin, ideographic, ...) → a space, its dashes and minus sign → `-`, the
 *   look-alikes of `@` and `.` (`﹫`, `。`, `｡`, `﹒`, `․`) → `@` and `.`, so `138 1234 5678` with any of them between
 *   its groups, or `ops@example。com`, is the value it reads as;
 * - one layer of URL percent-encoding of letters, digits, the punctuation of values and the space (`a%40b.cn` in an
 *   access log's query string, `%31%33%38`), not of the rest (`12%3A30` is a time, not part of a value);
 * - HTML character references (`&#64;`, `&#x40;`, `&commat;`) standing for any of the above;
 * - invisible characters (Unicode's default-ignorable code points: zero-width spaces and joiners, word joiner, BOM,
 *   soft hyphen, bidi controls, variation selectors, Hangul fillers, and the astral tag characters and selectors, two
 *   UTF-16 units each) dropped, so a value split by them is one value again.
 * NOTE: the view is only for finding values: the original's span `[sourceStart[start], sourceEnd[end - 1])` is what
 * is replaced, so an invisible character inside a value goes with it and nothing around it changes. Linear: one pass.
 * NOTE: over 300 lines on purpose: one view of a text with each character mapped back to the original; the encodings
 * it undoes share one position map.
 */
export interface NormalisedView {
  text: string;
  /** For each character of `text`, the index in the original where its source begins. */
  sourceStart: Uint32Array;
  /** For each character of `text`, the index in the original just after its source. */
  sourceEnd: Uint32Array;
}

/**
 * Whether the UTF-16 unit `code` is an invisible character the view drops: Unicode's default-ignorable code points of
 * the Basic Multilingual Plane (soft hyphen, zero-width spaces and joiners, bidi controls, variation selectors, the
 * Hangul fillers, ...), the characters a renderer shows as nothing. A unit test holds it to the property.
 */
export function isInvisibleCharacter(code: number): boolean {
  return (
    code === 0x00ad ||
    code === 0x034f ||
    code === 0x061c ||
    (code >= 0x115f && code <= 0x1160) ||
    (code >= 0x17b4 && code <= 0x17b5) ||
    (code >= 0x180b && code <= 0x180f) ||
    (code >= 0x200b && code <= 0x200f) ||
    (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2060 && code <= 0x206f) ||
    code === 0x3164 ||
    (code >= 0xfe00 && code <= 0xfe0f) ||
    code === 0xfeff ||
    code === 0xffa0 ||
    (code >= 0xfff0 && code <= 0xfff8)
  );
}

/** Whether an astral code point is default-ignorable: the shorthand and musical format controls, tags, selectors. */
function isInvisibleAstral(point: number): boolean {
  return (
    (point >= 0x1bca0 && point <= 0x1bca3) ||
    (point >= 0x1d173 && point <= 0x1d17a) ||
    (point >= 0xe0000 && point <= 0xe0fff)
  );
}

/**
 * Whether the units at `index` and `index + 1` are one astral invisible character (a high and a low surrogate).
 * NOTE: only the low unit is checked: with any other unit than a high surrogate before it, the code point computed
 * falls outside every range of isInvisibleAstral (below 0x10000, or above 0x10FFFF).
 */
function isInvisiblePairAt(text: string, index: number): boolean {
  const low = text.charCodeAt(index + 1);
  if (!(low >= 0xdc00 && low <= 0xdfff)) return false;
  return isInvisibleAstral((text.charCodeAt(index) - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000);
}

/**
 * Whether the unit at `index` of `text` belongs to an invisible character the view drops: a BMP one, or either half of
 * an astral one (a tag character or a variation selector of the supplement is two units). False outside the text and
 * for a lone surrogate.
 */
export function isInvisibleAt(text: string, index: number): boolean {
  const code = text.charCodeAt(index);
  if (code >= 0xdc00 && code <= 0xdfff) return isInvisiblePairAt(text, index - 1);
  return isInvisibleCharacter(code) || isInvisiblePairAt(text, index);
}

const FULL_WIDTH_OFFSET = 0xfee0;

/** Whether an ASCII code is one a value is made of: letters, digits, `@ . + - _`. */
function isValueAscii(code: number): boolean {
  return (
    (code >= 48 && code <= 57) ||
    (code >= 65 && code <= 90) ||
    (code >= 97 && code <= 122) ||
    code === 64 ||
    code === 46 ||
    code === 43 ||
    code === 45 ||
    code === 95
  );
}

/** The ASCII code full-width `code` stands for where it can be part of a value, or -1. */
function fullWidthValueCode(code: number): number {
  if (code < 0xff01 || code > 0xff5e) return -1;
  const ascii = code - FULL_WIDTH_OFFSET;
  return isValueAscii(ascii) ? ascii : -1;
}

/**
 * The code point of Unicode's decimal digit zero of each script but ASCII (each is followed by its digits one to
 * nine; a run of several sets, like the mathematical digits, has a zero every ten). A unit test holds the list to the
 * engine's `\p{Nd}` over every code point.
 */
const DIGIT_ZEROS: readonly number[] = Object.freeze([
  0x660, 0x6f0, 0x7c0, 0x966, 0x9e6, 0xa66, 0xae6, 0xb66, 0xbe6, 0xc66, 0xce6, 0xd66, 0xde6, 0xe50, 0xed0, 0xf20,
  0x1040, 0x1090, 0x17e0, 0x1810, 0x1946, 0x19d0, 0x1a80, 0x1a90, 0x1b50, 0x1bb0, 0x1c40, 0x1c50, 0xa620, 0xa8d0,
  0xa900, 0xa9d0, 0xa9f0, 0xaa50, 0xabf0, 0xff10, 0x104a0, 0x10d30, 0x10d40, 0x11066, 0x110f0, 0x11136, 0x111d0,
  0x112f0, 0x11450, 0x114d0, 0x11650, 0x116c0, 0x116d0, 0x116da, 0x11730, 0x118e0, 0x11950, 0x11bf0, 0x11c50, 0x11d50,
  0x11da0, 0x11de0, 0x11f50, 0x16130, 0x16a60, 0x16ac0, 0x16b50, 0x16d70, 0x1ccf0, 0x1d7ce, 0x1d7d8, 0x1d7e2, 0x1d7ec,
  0x1d7f6, 0x1e140, 0x1e2f0, 0x1e4f0, 0x1e5f1, 0x1e950, 0x1fbf0,
]);

/** The value of `point` as a decimal digit of a script other than ASCII, or -1. */
export function digitValue(point: number): number {
  // The last zero at or before `point` (binary search), then whether `point` is one of the nine digits after it.
  let low = 0;
  let high = DIGIT_ZEROS.length - 1;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if ((DIGIT_ZEROS[middle] ?? 0) <= point) low = middle;
    else high = middle - 1;
  }
  const value = point - (DIGIT_ZEROS[low] ?? 0);
  return value >= 0 && value <= 9 ? value : -1;
}

/**
 * Unicode's decimal digits (`\p{Nd}`) as the body of a `u`-flag character class (`0-9\u{660}-\u{669}…`), built from
 * the table. NOTE: not `\p{Nd}` itself: every `\p{…}` in a pattern makes V8 ask ICU for the property's whole set
 * when it checks the pattern, even in a function that never runs: ≈ 1.4 M instructions at every cold start of each
 * function that bundles it (BENCHMARKS.md at 7339a50). A unit test holds this class to the engine's `\p{Nd}`.
 */
export function decimalDigitClass(): string {
  let body = '0-9';
  for (const zero of DIGIT_ZEROS) body += `\\u{${zero.toString(16)}}-\\u{${(zero + 9).toString(16)}}`;
  return body;
}

/** Whether `point` is one of Unicode's spaces other than the ASCII one (no-break, figure, thin, ideographic, ...). */
function isUnicodeSpace(point: number): boolean {
  return (
    point === 0x00a0 ||
    point === 0x1680 ||
    (point >= 0x2000 && point <= 0x200a) ||
    point === 0x202f ||
    point === 0x205f ||
    point === 0x3000
  );
}

/** Whether `point` is a dash or minus sign a reader reads as `-` between digit groups. */
function isDash(point: number): boolean {
  return (point >= 0x2010 && point <= 0x2015) || point === 0x2212 || point === 0xfe58 || point === 0xfe63;
}

/** Whether `point` is a compatibility form a reader reads as digits or letters (NFKC says which). */
function isCompatibilityForm(point: number): boolean {
  return (
    point === 0x00b2 ||
    point === 0x00b3 ||
    point === 0x00b9 ||
    (point >= 0x2070 && point <= 0x209c) ||
    (point >= 0x2460 && point <= 0x24ea) ||
    (point >= 0x3251 && point <= 0x325f) ||
    (point >= 0x32b1 && point <= 0x32bf) ||
    (point >= 0x1d400 && point <= 0x1d7ff)
  );
}

/** The ASCII a reader reads for the non-ASCII code point `point` where it can be part of a value, or null. */
function readerAscii(point: number): string | null {
  const fullWidth = fullWidthValueCode(point);
  if (fullWidth !== -1) return String.fromCharCode(fullWidth);
  if (isUnicodeSpace(point)) return ' ';
  if (isDash(point)) return '-';
  if (point === 0xfe62) return '+';
  if (point === 0xfe6b) return '@';
  if (point === 0x3002 || point === 0xff61 || point === 0xfe52 || point === 0x2024) return '.';
  const digit = digitValue(point);
  if (digit !== -1) return String(digit);
  const circled = circledNumber(point);
  if (circled !== -1) return String(circled);
  if (!isCompatibilityForm(point)) return null;
  // NOTE: `⑩` is read `10` and `⒈` `1.`; `⑴` reads `(1)`, which no value holds, and stays as it is.
  const compatible = String.fromCodePoint(point).normalize('NFKC');
  return /^[0-9A-Za-z.+]{1,3}$/.test(compatible) ? compatible : null;
}

/**
 * The number of a circled digit NFKC leaves as it is (the negative and double circled ones, `❶`, `⓫`, `⓵`, `⓿`), or
 * -1.
 */
function circledNumber(point: number): number {
  if (point >= 0x2776 && point <= 0x2793) return ((point - 0x2776) % 10) + 1;
  if (point >= 0x24eb && point <= 0x24f4) return point - 0x24eb + 11;
  if (point >= 0x24f5 && point <= 0x24fe) return point - 0x24f5 + 1;
  return point === 0x24ff ? 0 : -1;
}

/** Whether the character at `code` is one the view drops or maps, i.e. part of a value in its encoded form. */
export function isEncodingCharacter(code: number): boolean {
  return isInvisibleCharacter(code) || readerAscii(code) !== null;
}

/**
 * Whether the unit at `index` of `text` belongs to a character the view drops or maps (`isEncodingCharacter`, or
 * either half of an astral one: a mathematical digit, a tag character). False outside the text and for a lone
 * surrogate.
 */
export function isEncodingAt(text: string, index: number): boolean {
  const code = text.charCodeAt(index);
  // NOTE: the low half of a pair belongs to the character that starts one unit before it; codePointAt reads the pair
  // there (a lone surrogate reads as itself, which nothing maps).
  const previous = text.charCodeAt(index - 1);
  const lowOfPair = code >= 0xdc00 && code <= 0xdfff && previous >= 0xd800 && previous <= 0xdbff;
  const point = text.codePointAt(lowOfPair ? index - 1 : index) ?? code;
  return isEncodingCharacter(point) || isInvisibleAstral(point);
}

/** What a reader reads at `index` where it can be part of a value, and how many units it takes; null: itself. */
function readAt(text: string, index: number): { ascii: string; width: number } | null {
  const code = text.charCodeAt(index);
  if (code === 37 /* % */) {
    const decoded = percentDecoded(text, index);
    return decoded === -1 ? null : { ascii: String.fromCharCode(decoded), width: 3 };
  }
  if (code === 38 /* & */) return referenceAt(text, index);
  if (code <= 0x7f) return null;
  const point = text.codePointAt(index) ?? code;
  const ascii = readerAscii(point);
  return ascii === null ? null : { ascii, width: point === code ? 1 : 2 };
}

/** The HTML character reference at `index` (`&#64;`, `&#x40;`, `&commat;`) where it stands for part of a value. */
function referenceAt(text: string, index: number): { ascii: string; width: number } | null {
  // NOTE: built per call (V8 compiles the literal once), so its mutants are tested by the tests that build a view.
  const reference = /&(?:#([0-9]{1,7})|#[xX]([0-9a-fA-F]{1,6})|(commat|period|plus|minus|hyphen|dash|lowbar|nbsp));/y;
  const named: Record<string, string> = {
    commat: '@',
    period: '.',
    plus: '+',
    minus: '-',
    hyphen: '-',
    dash: '-',
    lowbar: '_',
    nbsp: ' ',
  };
  reference.lastIndex = index;
  const found = reference.exec(text);
  if (found === null) return null;
  const [whole, decimal, hexadecimal, name] = found;
  if (name !== undefined) return { ascii: named[name] ?? '', width: whole.length };
  const point = decimal !== undefined ? Number(decimal) : Number(`0x${hexadecimal}`);
  // NOTE: an ASCII character other than a value's reads as itself (null); so does any point above U+10FFFF.
  const ascii = point === 32 || isValueAscii(point) ? String.fromCharCode(point) : readerAscii(point);
  return ascii === null ? null : { ascii, width: whole.length };
}

/**
 * Whether `text` holds anything the view would change that can matter: checked first, so plain text costs one scan.
 * NOTE: a separator, dash or dot (`。`, `　`, `—` are in most Chinese sentences) only matters between two ASCII letters
 * or digits (`138 1234`, `example。com`; beside another encoded character, that one answers), not after a word that
 * ends a sentence (`timeout。`); and `%` and `&` only as an escape or a reference.
 */
function needsView(text: string): boolean {
  // NOTE: built per call (V8 compiles the literal once), so its mutants are tested by the tests that build a view, not
  // by reloading every masking test (docs/development.md, Mutation testing).
  if (/%[0-9A-Fa-f]{2}|&(?:#|[A-Za-z]+;)/.test(text)) return true;
  const asciiAlphanumeric = /[0-9A-Za-z]/;
  // NOTE: only the characters that are neither ASCII (decided by the test above) nor CJK ideographs (most of a Chinese
  // text; none reads as part of a value) are looked at: the engine skips the rest in one scan.
  const looked = /[\u0080-\u33ff\ua000-\uffff]/g;
  for (let found = looked.exec(text); found !== null; found = looked.exec(text)) {
    const { index } = found;
    if (!isEncodingAt(text, index)) continue;
    const read = readerAscii(text.charCodeAt(index));
    if (read !== ' ' && read !== '-' && read !== '.') return true;
    if (asciiAlphanumeric.test(text.charAt(index - 1)) && asciiAlphanumeric.test(text.charAt(index + 1))) return true;
  }
  return false;
}

/** The view of `text`, or null when it would be the text itself (nothing to undo). */
export function buildNormalisedView(text: string): NormalisedView | null {
  if (!needsView(text)) return null;
  // NOTE: a unit may read as up to three characters (`⒛` is `20.`), so the view may be three times as long.
  const capacity = text.length * 3;
  const codes = new Uint16Array(capacity);
  const sourceStart = new Uint32Array(capacity);
  const sourceEnd = new Uint32Array(capacity);
  let length = 0;
  /** Adds the view's next character, `code`, read from the original's `[start, end)`. */
  const add = (code: number, start: number, end: number) => {
    codes[length] = code;
    sourceStart[length] = start;
    sourceEnd[length] = end;
    length += 1;
  };
  let changed = false;
  let index = 0;
  while (index < text.length) {
    const code = text.charCodeAt(index);
    // NOTE: full-width characters, the commonest encoding (user-typed Chinese text), are mapped without a lookup; a
    // pure shortcut of readAt's answer (mutation-targets.ts).
    const fullWidth = fullWidthValueCode(code);
    if (fullWidth !== -1) {
      add(fullWidth, index, index + 1);
      changed = true;
      index += 1;
      continue;
    }
    if (isInvisibleCharacter(code)) {
      changed = true;
      index += 1;
      continue;
    }
    if (isInvisiblePairAt(text, index)) {
      changed = true;
      index += 2;
      continue;
    }
    const read = readAt(text, index);
    const width = read === null ? 1 : read.width;
    const ascii = read === null ? text.charAt(index) : read.ascii;
    if (read !== null) changed = true;
    for (let offset = 0; offset < ascii.length; offset += 1) {
      add(ascii.charCodeAt(offset), index, index + width);
    }
    index += width;
  }
  if (!changed) return null;
  return {
    text: new TextDecoder('utf-16le').decode(codes.subarray(0, length)),
    sourceStart: sourceStart.subarray(0, length),
    sourceEnd: sourceEnd.subarray(0, length),
  };
}

/** The code `%XX` at `index` stands for where it can be part of a value (letter, digit, `@ . + - _`, space), or -1. */
function percentDecoded(text: string, index: number): number {
  const high = hexValue(text.charCodeAt(index + 1));
  const low = hexValue(text.charCodeAt(index + 2));
  if (high < 0 || low < 0) return -1;
  const code = high * 16 + low;
  return code === 32 || isValueAscii(code) ? code : -1;
}

function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 65 && code <= 70) return code - 55;
  if (code >= 97 && code <= 102) return code - 87;
  return -1;
}
