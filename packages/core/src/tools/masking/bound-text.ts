import { decimalDigitClass, isEncodingAt, isInvisibleAt } from './normalised-view.ts';

/**
 * The text cut to `maxChars`, at the last character before the cut that no value can contain (whitespace, CJK text,
 * quotes, brackets, separators), so that no value is cut in two: a cut value could escape its detector and show its
 * first part. NOTE: every character the view reads as part of a value (full-width ASCII, other scripts' digits,
 * Unicode's spaces and dashes, `﹫` and `。`) or drops (invisible characters) is part of a value in its encoded form
 * (`１３９１２３４５６７８`, `139\u200b1234…`, `١٣٨`: see normalised-view.ts), so it is no place to cut either. A
 * text without such a character in its first `maxChars` is one oversized token (a blob) and is masked whole.
 */
export function boundText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  // NOTE: the patterns live here, not at module level (nor kept from an earlier cut), so each of their mutants is tested
  // by the tests that cut a text, not by reloading every masking test (docs/development.md, Mutation testing). Their
  // digits come from the view's table, not `\p{Nd}` (see decimalDigitClass); building them costs ≈ 20 µs, only when a
  // text is cut.
  const valueBreak = /[\s,;"'<>()[\]{}|`]/;
  const digit = `${decimalDigitClass()}\\u00b2\\u00b3\\u00b9\\u2070-\\u2089\\u2460-\\u24ff\\u2776-\\u2793`;
  const separator = '\\s\\-.\\u2010-\\u2015\\u2212';
  /** A digit (of any script, or a superscript or circled one), maybe followed by one separator, before the cut. */
  const digitsBefore = new RegExp(`[${digit}][${separator}]?$`, 'u');
  /** Separators and then a digit right after the cut. */
  const digitsAfter = new RegExp(`^[${separator}]{1,3}[${digit}]`, 'u');
  const digitRun = new RegExp(`[${digit}${separator}]`, 'u');
  for (let index = maxChars; index > 0; index -= 1) {
    const code = text.charCodeAt(index);
    if (code > 0x7f ? isEncodingAt(text, index) : !valueBreak.test(text.charAt(index))) {
      continue;
    }
    // NOTE: nor between the two units of an astral character (an emoji): the text kept would end in half of it.
    if (
      code >= 0xdc00 &&
      code <= 0xdfff &&
      text.charCodeAt(index - 1) >= 0xd800 &&
      text.charCodeAt(index - 1) <= 0xdbff
    ) {
      continue;
    }
    // NOTE: nor is a break beside an invisible character: the view drops it, so `138\u200b 1234 5678` reads as a spaced
    // phone number to the detectors, while the checks below, which see it, would cut at the space and keep `138`.
    if (isInvisibleAt(text, index - 1) || isInvisibleAt(text, index + 1)) continue;
    // NOTE: a space or hyphen between digit groups is part of a card or phone number (`4111 1111 1111 1111`,
    // `138 1234 5678`): a cut there would keep its first groups, each too short for any detector. The cut moves before
    // the whole run of digits and their separators.
    if (
      digitsBefore.test(text.slice(Math.max(0, index - 2), index)) &&
      digitsAfter.test(text.slice(index, index + 4))
    ) {
      let start = index;
      while (start > 0 && digitRun.test(text.charAt(start - 1))) start -= 1;
      index = start + 1;
      continue;
    }
    return text.slice(0, index);
  }
  return '[MASKED:oversized]';
}
