import { isEncodingCharacter } from './normalised-view.ts';

/**
 * The text cut to `maxChars`, at the last character before the cut that no value can contain (whitespace, CJK text,
 * quotes, brackets, separators), so that no value is cut in two: a cut value could escape its detector and show its
 * first part. NOTE: full-width ASCII and invisible characters are part of a value in its encoded form
 * (`１３９１２３４５６７８`, `139\u200b1234…`: see normalised-view.ts), so they are no place to cut either. A text
 * without such a character in its first `maxChars` is one oversized token (a blob) and is masked whole.
 */
export function boundText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  for (let index = maxChars; index > 0; index -= 1) {
    const code = text.charCodeAt(index);
    if (code > 0x7f ? !isEncodingCharacter(code) : VALUE_BREAK.test(text.charAt(index))) return text.slice(0, index);
  }
  return '[MASKED:oversized]';
}

const VALUE_BREAK = /[\s,;"'<>()[\]{}|`]/;
