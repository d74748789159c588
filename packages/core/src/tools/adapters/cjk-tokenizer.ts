/** A run of Han characters (captured), or a word of other letters, digits and underscores. */
const TOKEN = /(\p{Script=Han}+)|[[\p{L}\p{N}_]--\p{Script=Han}]+/gv;

/**
 * Tokens for full-text search over mixed Chinese and Latin text. Chinese has no spaces, and ICU word segmentation
 * (Intl.Segmenter) splits many technical terms badly (网关 → 网 | 关), so every run of Han characters becomes
 * overlapping character bigrams (a lone character stays a unigram), as Lucene's CJK analyzer does; other words are
 * lower-cased. Repeats are kept: term frequency counts.
 */
export function tokenizeMixedText(text: string): string[] {
  const tokens: string[] = [];
  for (const match of text.toLowerCase().matchAll(TOKEN)) {
    const token = match[0];
    if (match[1] === undefined) {
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
