import { describe, expect, it } from 'vitest';
import { tokenizeMixedText } from '../../../../../packages/core/src/tools/adapters/cjk-tokenizer.ts';
import {
  HAN_RANGES,
  OTHER_WORD_RANGES,
  WORD_CHARACTERS_UNICODE_VERSION,
} from '../../../../../packages/core/src/tools/adapters/word-characters.ts';
import { codePointRanges, encodeRanges, HAN, OTHER_WORD } from '../../../../../scripts/generate-word-characters.ts';

/** The tokenizer as a regular expression of the Unicode properties (the reference, not the code under test). */
function tokenizeByProperties(text: string): string[] {
  const tokens: string[] = [];
  for (const match of text.toLowerCase().matchAll(/(\p{Script=Han}+)|[[\p{L}\p{N}_]--\p{Script=Han}]+/gv)) {
    const characters = [...match[0]];
    if (match[1] === undefined) tokens.push(match[0]);
    else if (characters.length === 1) tokens.push(match[0]);
    else
      for (let index = 1; index < characters.length; index += 1)
        tokens.push(`${characters[index - 1]}${characters[index]}`);
  }
  return tokens;
}

describe('tokenizeMixedText', () => {
  it('classifies every code point as the Unicode properties of this Node do when the tables are current', () => {
    // A stale table (another Node's Unicode) fails here: run `node scripts/generate-word-characters.ts`.
    expect(WORD_CHARACTERS_UNICODE_VERSION).toBe(process.versions.unicode);
    expect(HAN_RANGES).toBe(encodeRanges(codePointRanges(HAN)));
    expect(OTHER_WORD_RANGES).toBe(encodeRanges(codePointRanges(OTHER_WORD)));
  });

  it('splits mixed Chinese and Latin text into bigrams and lower-cased words', () => {
    expect(tokenizeMixedText('网关超时 Gateway_TIMEOUT 504，订单 E1001')).toEqual([
      '网关',
      '关超',
      '超时',
      'gateway_timeout',
      '504',
      '订单',
      'e1001',
    ]);
    expect(tokenizeMixedText('单')).toEqual(['单']);
    expect(tokenizeMixedText('')).toEqual([]);
  });

  it('tokenizes as the property classes do when the text mixes scripts, marks, astral and lone surrogates', () => {
    const samples = [
      'Ünïcödé café naïve ÀÉÎ straße İstanbul ǅ',
      'ｆｕｌｌｗｉｄｔｈ　１２３ ＡＢＣ，。！？',
      '𠀀𠀁𪜀 a𠀀b 𝐀𝐁𝐂 𝟘𝟙 😀emoji😀',
      'かなカナ한국어 русский العربية हिन्दी ไทย',
      '\ud800lone\udc00 surrogate \ud83d',
      'x²³ ½ Ⅻ ⅻ ０ ٣ ① _ __ a_b-c.d/e:f',
      '〇々〆 ⺀ ⼀ ㍻ 㐀 鿿 豈 﨎 𰀀',
      'combining e\u0301 a\u0308 ZWJ\u200dJoin',
    ];
    for (const sample of samples) expect(tokenizeMixedText(sample), sample).toEqual(tokenizeByProperties(sample));
    // Every code point once, in runs of mixed classes.
    let all = '';
    for (let codePoint = 0; codePoint <= 0x10ffff; codePoint += 97) {
      if (codePoint < 0xd800 || codePoint > 0xdfff) all += String.fromCodePoint(codePoint);
    }
    expect(tokenizeMixedText(all)).toEqual(tokenizeByProperties(all));
  });
});
