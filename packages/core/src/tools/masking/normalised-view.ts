/**
 * The normalised view of a text (issue 32, item 8): what a reader sees in it, for the detectors, with each of its
 * characters mapped back to the characters of the original it came from. Three encodings are undone:
 * - full-width letters, digits and the punctuation values are made of (`＠．＋－＿`) → ASCII (`１３９…`,
 *   `ａ＠ｂ．ｃｎ`, ordinary in user-typed Chinese text). NOTE: not the full-width colon, comma or brackets every
 *   Chinese sentence has (`电话：`): `：：ａａ` read as `::aa` would be an IPv6 address;
 * - one layer of URL percent-encoding of the same punctuation and the space (`a%40b.cn` in an access log's query
 *   string; `%2E`, `%2B`, `%2D`, `%5F`, `%20`), not of the rest (`12%3A30` is a time, not part of a value);
 * - invisible characters (Unicode's default-ignorable code points: zero-width spaces and joiners, word joiner, BOM,
 *   soft hyphen, bidi controls, variation selectors, Hangul fillers, and the astral tag characters and selectors, two
 *   UTF-16 units each) dropped, so a value split by them is one value again.
 * NOTE: the view is only for finding values: the original's span `[sourceStart[start], sourceEnd[end - 1])` is what
 * is replaced, so an invisible character inside a value goes with it and nothing around it changes. Linear: one pass.
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

/** Whether the character at `code` is one the view drops or maps, i.e. part of a value in its encoded form. */
export function isEncodingCharacter(code: number): boolean {
  return fullWidthValueCode(code) !== -1 || isInvisibleCharacter(code);
}

/** The view of `text`, or null when it would be the text itself (nothing to undo). */
export function buildNormalisedView(text: string): NormalisedView | null {
  // Whether the text holds anything the view would change: checked first, so plain text costs one scan. NOTE: built
  // per call (V8 compiles the literal once), so its mutants are tested by the tests that build a view, not by
  // reloading every masking test (docs/development.md, Mutation testing).
  const needsView =
    /[%\uff0b\uff0d\uff0e\uff10-\uff19\uff20-\uff3a\uff3f\uff41-\uff5a]|\p{Default_Ignorable_Code_Point}/u;
  if (!needsView.test(text)) return null;
  const codes = new Uint16Array(text.length);
  const sourceStart = new Uint32Array(text.length);
  const sourceEnd = new Uint32Array(text.length);
  let length = 0;
  let changed = false;
  let index = 0;
  while (index < text.length) {
    const code = text.charCodeAt(index);
    let mapped = code;
    let width = 1;
    const fullWidth = fullWidthValueCode(code);
    if (fullWidth !== -1) {
      mapped = fullWidth;
    } else if (code === 37 /* % */) {
      const decoded = percentDecoded(text, index);
      if (decoded !== -1) {
        mapped = decoded;
        width = 3;
      }
    } else if (isInvisibleCharacter(code)) {
      changed = true;
      index += 1;
      continue;
    } else if (isInvisiblePairAt(text, index)) {
      changed = true;
      index += 2;
      continue;
    }
    if (width !== 1 || mapped !== code) changed = true;
    codes[length] = mapped;
    sourceStart[length] = index;
    sourceEnd[length] = index + width;
    length += 1;
    index += width;
  }
  if (!changed) return null;
  return {
    text: new TextDecoder('utf-16le').decode(codes.subarray(0, length)),
    sourceStart: sourceStart.subarray(0, length),
    sourceEnd: sourceEnd.subarray(0, length),
  };
}

/** The code `%XX` at `index` stands for where it can be part of a value (`@ . + - _` or the space), or -1. */
function percentDecoded(text: string, index: number): number {
  const high = hexValue(text.charCodeAt(index + 1));
  const low = hexValue(text.charCodeAt(index + 2));
  if (high < 0 || low < 0) return -1;
  const code = high * 16 + low;
  return code === 32 || (isValueAscii(code) && !isAlphanumeric(code)) ? code : -1;
}

function isAlphanumeric(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 65 && code <= 70) return code - 55;
  if (code >= 97 && code <= 102) return code - 87;
  return -1;
}
