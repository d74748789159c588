import { HAN_RANGES, OTHER_WORD_RANGES } from './word-characters.ts';

/** Sorted, flattened `[first, last, first, last, …]` code points of a generated range table. */
function decodeRanges(encoded: string): Uint32Array {
  const fields = encoded.split(' ');
  const bounds = new Uint32Array(fields.length);
  let previous = 0;
  for (let index = 0; index < fields.length; index += 2) {
    const first = previous + Number.parseInt(fields[index] ?? '', 36);
    previous = first + Number.parseInt(fields[index + 1] ?? '', 36);
    bounds[index] = first;
    bounds[index + 1] = previous;
  }
  return bounds;
}

interface WordTables {
  han: Uint32Array;
  otherWord: Uint32Array;
}

// NOTE: decoded on the first tokenization (≈ 1 M instructions), not at import: a cold start does not search, and the
// tables never change once decoded.
let decoded: WordTables | undefined;
const wordTables = (): WordTables =>
  (decoded ??= { han: decodeRanges(HAN_RANGES), otherWord: decodeRanges(OTHER_WORD_RANGES) });

function inRanges(bounds: Uint32Array, codePoint: number): boolean {
  let low = 0;
  let high = bounds.length / 2 - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    if (codePoint < (bounds[2 * middle] ?? 0)) high = middle - 1;
    else if (codePoint > (bounds[2 * middle + 1] ?? 0)) low = middle + 1;
    else return true;
  }
  return false;
}

const OTHER = 0;
const WORD = 1;
const HAN_CHARACTER = 2;

/** A Han character (`\p{Script=Han}`), another word character (`[\p{L}\p{N}_]`), or neither. */
function classOf(codePoint: number, tables: WordTables): number {
  if (codePoint < 0x80) {
    return (codePoint >= 0x61 && codePoint <= 0x7a) ||
      (codePoint >= 0x41 && codePoint <= 0x5a) ||
      (codePoint >= 0x30 && codePoint <= 0x39) ||
      codePoint === 0x5f
      ? WORD
      : OTHER;
  }
  if (inRanges(tables.han, codePoint)) return HAN_CHARACTER;
  return inRanges(tables.otherWord, codePoint) ? WORD : OTHER;
}

/**
 * Tokens for full-text search over mixed Chinese and Latin text. Chinese has no spaces, and ICU word segmentation
 * (Intl.Segmenter) splits many technical terms badly (网关 → 网 | 关), so every run of Han characters becomes
 * overlapping character bigrams (a lone character stays a unigram), as Lucene's CJK analyzer does; other words (runs of
 * letters, digits and underscores) are lower-cased. Repeats are kept: term frequency counts. NOTE: the classes are
 * the Unicode properties `\p{Script=Han}` and `[[\p{L}\p{N}_]--\p{Script=Han}]` as generated tables
 * (`word-characters.ts`), not a regular expression: building those property classes costs a cold start ≈ 9 M
 * instructions, and the index built at deploy and the queries at run time then classify by the same table.
 */
export function tokenizeMixedText(text: string): string[] {
  const tables = wordTables();
  const tokens: string[] = [];
  const lower = text.toLowerCase();
  let index = 0;
  while (index < lower.length) {
    const codePoint = lower.codePointAt(index) ?? 0;
    const kind = classOf(codePoint, tables);
    if (kind === OTHER) {
      index += codePoint > 0xffff ? 2 : 1;
      continue;
    }
    const start = index;
    let next = codePoint;
    while (index < lower.length && classOf(next, tables) === kind) {
      index += next > 0xffff ? 2 : 1;
      next = lower.codePointAt(index) ?? 0;
    }
    const token = lower.slice(start, index);
    if (kind === WORD) {
      tokens.push(token);
      continue;
    }
    // NOTE: iterates code points, not UTF-16 units: Han characters beyond the BMP (CJK extension B…) are one each.
    let previous = '';
    for (const character of token) {
      if (previous !== '') tokens.push(previous + character);
      previous = character;
    }
    if (previous === token) tokens.push(token);
  }
  return tokens;
}
