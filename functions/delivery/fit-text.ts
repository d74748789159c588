/**
 * Text fitted into a destination's length limit, never cut inside a word, a CJK character's cluster or an emoji:
 * the text is cut at the last word boundary (`Intl.Segmenter`, which knows CJK and grapheme clusters) that keeps it,
 * an ellipsis included, within the limit. `measure` is how the destination counts (escaped length for Slack).
 */

const ELLIPSIS = '…';
let words: Intl.Segmenter | undefined;

/**
 * The word segmenter, made at the first cut. NOTE: not at module level: making it loads ICU's break rules and
 * dictionaries, ≈ 93 M instructions (≈ 7 ms) of every cold start of the functions that deliver (BENCHMARKS.md at
 * 7339a50), and most texts fit whole, so most invocations never need it.
 */
function wordSegmenter(): Intl.Segmenter {
  if (words === undefined) words = new Intl.Segmenter('und', { granularity: 'word' });
  return words;
}

export interface FittedText {
  text: string;
  /** Some of the text did not fit. */
  cut: boolean;
}

/**
 * `text` transformed by `encode` (escaping) and fitted into `maxChars` of the encoded form. NOTE: the cut is made on
 * the raw text, so an escape (`&amp;`) is never split; an ellipsis marks it.
 */
export function fitText(text: string, maxChars: number, encode: (raw: string) => string = (raw) => raw): FittedText {
  const whole = encode(text);
  if (whole.length <= maxChars) return { text: whole, cut: false };
  const budget = maxChars - ELLIPSIS.length;
  // NOTE: every segment boundary is a word boundary, and a segment never splits a grapheme cluster; a single word
  // longer than the whole budget (a 10 KB token) is left out entirely rather than cut inside.
  let kept = '';
  for (const { segment } of wordSegmenter().segment(text)) {
    const encoded = encode(segment);
    if (kept.length + encoded.length > budget) break;
    kept += encoded;
  }
  return { text: `${kept.trimEnd()}${ELLIPSIS}`, cut: true };
}
