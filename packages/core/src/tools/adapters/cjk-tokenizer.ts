const HAN_RUN = /\p{Script=Han}+/gu;
const HAN = /\p{Script=Han}/u;
const WORD_SEGMENTER = new Intl.Segmenter('zh', { granularity: 'word' });

/**
 * Tokens for full-text search over mixed Chinese and Latin text. Chinese has no spaces, and ICU's word segmentation
 * splits many technical terms (网关 → 网 | 关), so every run of Han characters becomes overlapping character bigrams
 * (a lone character stays a unigram), as Lucene's CJK analyzer does. Other text uses ICU word segmentation,
 * lower-cased. Repeats are kept: term frequency counts.
 */
export function tokenizeMixedText(text: string): string[] {
  const lower = text.toLowerCase();
  const tokens: string[] = [];
  for (const { segment, isWordLike } of WORD_SEGMENTER.segment(lower)) {
    if (isWordLike && !HAN.test(segment)) tokens.push(segment);
  }
  for (const run of lower.match(HAN_RUN) ?? []) {
    const chars = Array.from(run);
    if (chars.length === 1) tokens.push(run);
    for (let index = 0; index + 1 < chars.length; index += 1) tokens.push(`${chars[index]}${chars[index + 1]}`);
  }
  return tokens;
}
