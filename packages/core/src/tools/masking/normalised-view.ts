/**
 * The normalised view of a text (issue 32, item 8): what a reader sees in it, for the detectors, with each of its
 * characters mapped back to the characters of the original it came from. Three encodings are undone:
 * - full-width letters, digits and the punctuation values are made of (`＠．＋－＿`) → ASCII (`１３９…`,
 *   `ａ＠ｂ．ｃｎ`, ordinary in user-typed Chinese text). NOTE: not the full-width colon, comma or brackets every
 *   Chinese sentence has (`电话：`): `：：ａａ` read as `::aa` would be an IPv6 address;
 * - one layer of URL percent-encoding of the same punctuation and the space (`a%40b.cn` in an access log's query
 *   string; `%2E`, `%2B`, `%2D`, `%5F`, `%20`), not of the rest (`12%3A30` is a time, not part of a value);
 * - invisible characters (zero-width spaces and joiners, word joiner, BOM, soft hyphen, bidi controls, variation
 *   selectors) dropped, so a value split by them is one value again.
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

/** Whether `code` is an invisible character the view drops (general category Cf, or a variation selector). */
function isInvisible(code: number): boolean {
  return (
    code === 0x00ad ||
    code === 0x034f ||
    code === 0x061c ||
    code === 0x180e ||
    (code >= 0x200b && code <= 0x200f) ||
    (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2060 && code <= 0x2064) ||
    (code >= 0x2066 && code <= 0x206f) ||
    (code >= 0xfe00 && code <= 0xfe0f) ||
    code === 0xfeff
  );
}
/** Whether a text holds anything the view would change: checked first, so plain text costs one scan. */
const NEEDS_VIEW =
  /[%\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\uff0b\uff0d\uff0e\uff10-\uff19\uff20-\uff3a\uff3f\uff41-\uff5a]|\u034f|[\ufe00-\ufe0f]/;

const FULL_WIDTH_OFFSET = 0xfee0;
/** The ASCII characters a value is made of: letters, digits, `@ . + - _` (and, percent-encoded only, the space). */
const VALUE_ASCII = /^[0-9A-Za-z@.+\-_]$/;
const PERCENT_DECODED = /^[@.+\-_ ]$/;

/** The ASCII character full-width `code` stands for where it can be part of a value, or null. */
function fullWidthValueCharacter(code: number): string | null {
  if (code < 0xff01 || code > 0xff5e) return null;
  const character = String.fromCharCode(code - FULL_WIDTH_OFFSET);
  return VALUE_ASCII.test(character) ? character : null;
}

/** Whether the character at `code` is one the view drops or maps, i.e. part of a value in its encoded form. */
export function isEncodingCharacter(code: number): boolean {
  return fullWidthValueCharacter(code) !== null || isInvisible(code);
}

/** The view of `text`, or null when it would be the text itself (nothing to undo). */
export function buildNormalisedView(text: string): NormalisedView | null {
  if (!NEEDS_VIEW.test(text)) return null;
  const sourceStart = new Uint32Array(text.length);
  const sourceEnd = new Uint32Array(text.length);
  let output = '';
  let changed = false;
  let index = 0;
  while (index < text.length) {
    const code = text.charCodeAt(index);
    let character = text.charAt(index);
    let width = 1;
    const fullWidth = fullWidthValueCharacter(code);
    if (fullWidth !== null) {
      character = fullWidth;
    } else if (code === 37 /* % */) {
      const decoded = percentDecoded(text, index);
      if (decoded !== null) {
        character = decoded;
        width = 3;
      }
    } else if (isInvisible(code)) {
      changed = true;
      index += 1;
      continue;
    }
    if (width !== 1 || character.charCodeAt(0) !== code) changed = true;
    sourceStart[output.length] = index;
    sourceEnd[output.length] = index + width;
    output += character;
    index += width;
  }
  if (!changed) return null;
  return {
    text: output,
    sourceStart: sourceStart.subarray(0, output.length),
    sourceEnd: sourceEnd.subarray(0, output.length),
  };
}

/** The character `%XX` at `index` stands for where it can be part of a value, or null. */
function percentDecoded(text: string, index: number): string | null {
  const high = hexValue(text.charCodeAt(index + 1));
  const low = hexValue(text.charCodeAt(index + 2));
  if (high < 0 || low < 0) return null;
  const character = String.fromCharCode(high * 16 + low);
  return PERCENT_DECODED.test(character) ? character : null;
}

function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 65 && code <= 70) return code - 55;
  if (code >= 97 && code <= 102) return code - 87;
  return -1;
}
