/** A run of Han characters, or a word of other letters, digits and underscores. */
const TOKEN = /\p{Script=Han}+|[[\p{L}\p{N}_]--\p{Script=Han}]+/gv;

/**
 * Tokens for full-text search over mixed Chinese and Latin text. Chinese has no spaces, and ICU word segmentation
 * (Intl.Segmenter) splits many technical terms badly (网关 → 网 | 关), so every run of Han characters becomes
 * overlapping character bigrams (a lone character stays a unigram), as Lucene's CJK analyzer does; other words are
 * lower-cased. Repeats are kept: term frequency counts.
 */
export function tokenizeMixedText(text: string): string[] {
  const tokens: string[] = [];
  for (const [token] of text.toLowerCase().matchAll(TOKEN)) {
    const first = token.codePointAt(0) ?? 0;
    if (!isHan(first)) {
      tokens.push(token);
      continue;
    }
    const chars = Array.from(token);
    if (chars.length === 1) tokens.push(token);
    for (let index = 0; index + 1 < chars.length; index += 1) tokens.push(`${chars[index]}${chars[index + 1]}`);
  }
  return tokens;
}

const HAN = /\p{Script=Han}/u;
function isHan(codePoint: number): boolean {
  return HAN.test(String.fromCodePoint(codePoint));
}
