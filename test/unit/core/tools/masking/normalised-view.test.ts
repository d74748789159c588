import { describe, expect, it } from 'vitest';
import {
  buildNormalisedView,
  isEncodingCharacter,
} from '../../../../../packages/core/src/tools/masking/normalised-view.ts';

const spans = (view: ReturnType<typeof buildNormalisedView>) =>
  view === null ? null : [...view.text].map((_, index) => [view.sourceStart[index], view.sourceEnd[index]]);

describe('buildNormalisedView', () => {
  it('is null for a text it would not change, without building anything', () => {
    expect(buildNormalisedView('')).toBeNull();
    expect(buildNormalisedView('plain ASCII 13912345678 a@b.cn')).toBeNull();
    expect(buildNormalisedView('cpu 95% 50%2 %zz %3A30 12%3a30 %E4%B8%AD end%')).toBeNull();
    expect(buildNormalisedView('电话：无，好（是）「否」')).toBeNull();
  });

  it('maps full-width digits, letters and the punctuation of values to ASCII, one character each', () => {
    const view = buildNormalisedView('x１３＠ｂ．ｃｎ＋－＿');
    expect(view?.text).toBe('x13@b.cn+-_');
    expect(spans(view)).toEqual(Array.from({ length: 11 }, (_, index) => [index, index + 1]));
  });

  it('keeps the full-width colon, comma and brackets as they are (never `::aa` from `：：ａａ`)', () => {
    expect(buildNormalisedView('：：ａａ，（）')?.text).toBe('：：aa，（）');
  });

  it('decodes one layer of %40, %2E, %2B, %2D, %5F and %20 (either case), each from three characters', () => {
    const view = buildNormalisedView('a%40b%2ecn%2B%2d%5F%20x');
    expect(view?.text).toBe('a@b.cn+-_ x');
    expect(spans(view)?.slice(0, 3)).toEqual([
      [0, 1],
      [1, 4],
      [4, 5],
    ]);
    expect(buildNormalisedView('a%2540b')).toBeNull();
    expect(buildNormalisedView('a%41%31')).toBeNull();
    expect(buildNormalisedView('tail %4')).toBeNull();
  });

  it('drops invisible characters, each output character still pointing at its own source', () => {
    const view = buildNormalisedView('1\u200b2\u00ad3\ufeff4\u202e5\u2066\ufe0f6');
    expect(view?.text).toBe('123456');
    expect(view?.sourceStart).toEqual(Uint32Array.from([0, 2, 4, 6, 8, 11]));
    expect(view?.sourceEnd).toEqual(Uint32Array.from([1, 3, 5, 7, 9, 12]));
  });

  it('keeps other non-ASCII text and surrogate pairs as they are', () => {
    expect(buildNormalisedView('用户１ 😀 é')?.text).toBe('用户1 😀 é');
  });

  it('builds the view of a long text in one pass (linear)', () => {
    const text = '１３９\u200b'.repeat(50_000);
    const view = buildNormalisedView(text);
    expect(view?.text.length).toBe(150_000);
    expect(view?.sourceEnd[149_999]).toBe(199_999);
  });
});

describe('isEncodingCharacter', () => {
  it('is true for the characters a value is encoded with, false for text around values', () => {
    for (const character of ['１', 'Ａ', 'ｚ', '＠', '．', '＿', '\u200b', '\u00ad', '\ufeff', '\ufe0f']) {
      expect(isEncodingCharacter(character.charCodeAt(0)), character).toBe(true);
    }
    for (const character of ['：', '，', '（', '用', ' ', 'a', '%', '\u3000']) {
      expect(isEncodingCharacter(character.charCodeAt(0)), character).toBe(false);
    }
  });
});
