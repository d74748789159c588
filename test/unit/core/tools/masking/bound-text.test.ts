import { describe, expect, it } from 'vitest';
import { boundText } from '../../../../../packages/core/src/tools/masking/bound-text.ts';

const LIMIT = 16 * 1024;

describe('boundText', () => {
  it('keeps a text of at most the bound as it is', () => {
    expect(boundText('x'.repeat(10), 10)).toBe('x'.repeat(10));
    expect(boundText('', 10)).toBe('');
  });

  it('cuts at the last character before the bound that no value contains', () => {
    expect(boundText('aaaa bbbbbbbb', 10)).toBe('aaaa');
    expect(boundText('aa,bbbbbbbbbb', 10)).toBe('aa');
    expect(boundText('用户bbbbbbbbbbbb', 10)).toBe('用');
  });

  it('never cuts inside a value written in full-width characters or split by invisible ones', () => {
    expect(boundText('ab １３９１２３４５６７８９０', 10)).toBe('ab');
    expect(boundText('ab 139\u200b1234\u200b5678', 10)).toBe('ab');
    expect(boundText('ab 1\u00ad39\ufeff12345678', 8)).toBe('ab');
  });

  it('never cuts inside a value a reader reads: other scripts\u2019 digits, mathematical ones, circled ones', () => {
    expect(boundText('ab \u0661\u0663\u0668\u0661\u0662\u0663\u0664\u0665\u0666\u0667\u0668', 10)).toBe('ab');
    expect(boundText(`ab ${'\u{1d7cf}\u{1d7d1}\u{1d7d6}'.repeat(4)}`, 11)).toBe('ab');
    expect(boundText('ab ①③⑧①②③④⑤⑥⑦⑧', 10)).toBe('ab');
    expect(boundText('ab ops\ufe6bexample\u3002com', 14)).toBe('ab');
  });

  it('never cuts a number whose groups Unicode spaces or dashes split, in any script\u2019s digits', () => {
    expect(boundText('call 138\u00a01234\u00a05678', 14)).toBe('call');
    expect(boundText('call 138\u202f1234\u202f5678', 14)).toBe('call');
    expect(boundText('call 138\u20131234\u20135678', 14)).toBe('call');
    expect(boundText('call \u0661\u0663\u0668 \u0661\u0662\u0663\u0664 \u0665\u0666\u0667\u0668', 14)).toBe('call');
    expect(boundText('call \u0661\u0663\u0668-\u0661\u0662\u0663\u0664-\u0665\u0666\u0667\u0668', 14)).toBe('call');
  });

  it('never cuts inside a number written with spaces or hyphens between its digit groups', () => {
    // A card or phone across the cut would keep its first groups (`4111`, `138 1234`) below any detector's length.
    expect(boundText('log 4111 1111 1111 1111', 12)).toBe('log');
    expect(boundText('call 138 1234 5678', 14)).toBe('call');
    expect(boundText('card 4111-1111-1111-1111', 16)).toBe('card');
    expect(boundText('a １３８ １２３４ ５６７８', 12)).toBe('a');
    // A cut after a whole number, before other text, stays where it was.
    expect(boundText('pid 4242 then more text', 12)).toBe('pid 4242');
    // Only digits and their separators up to the bound: no place left to cut.
    expect(boundText('1 2 3 4 5 6 7 8 9', 10)).toBe('[MASKED:oversized]');
  });

  it('keeps no group of a spaced card that crosses the 16 KiB cut', () => {
    const padding = `${'x '.repeat(8190)}`;
    const text = `${padding}4111 1111 1111 1111 tail`;
    expect(boundText(text, 16_384)).toBe(padding.slice(0, -1));
  });

  // NOTE: a bounded exhaustive check: the 16 KiB bound at every character of each number, exact outputs.
  it.each([
    '4111 1111 1111 1111',
    '4111-1111-1111-1111',
    '138 1234 5678',
    '138-1234-5678',
    '+86 138 1234 5678',
    '１３８ １２３４ ５６７８',
    '４１１１　１１１１　１１１１　１１１１',
    '138\u200b 1234 5678',
    '138 \u200b1234 5678',
    '4111\u00ad 1111 1111 1111',
    '4111 1111\u2060 \u20601111 1111',
  ])('cuts before %j wherever the 16 KiB bound falls inside it, and keeps it whole when it ends there', (number) => {
    for (let offset = 0; offset <= number.length; offset += 1) {
      // The number starts `offset` characters before the bound, after `yyy… log `.
      const prefix = `${'y'.repeat(LIMIT - offset - 5)} log `;
      const cut = boundText(`${prefix}${number} tail`, LIMIT);
      expect(cut, `bound ${offset} characters into it`).toBe(
        offset === number.length ? `${prefix}${number}` : prefix.slice(0, -1),
      );
    }
  });

  it('never cuts beside an invisible character: the view joins what is on both sides of the break', () => {
    // `138\u200b 1234 5678` reads `138 1234 5678` to the detectors; a cut at the space would keep `138`.
    expect(boundText('tel 138\u200b 1234 5678 tail', 9)).toBe('tel');
    expect(boundText('tel 138 \u200b1234 5678 tail', 8)).toBe('tel');
    expect(boundText('ab\u200b cd ef', 4)).toBe('[MASKED:oversized]');
    expect(boundText('ab \u200bcd ef', 4)).toBe('[MASKED:oversized]');
  });

  it('never cuts beside or inside an astral invisible character (a tag character is two units)', () => {
    // `138\u{E0031} 1234 5678` reads `138 1234 5678` to the detectors, as with a zero-width space.
    expect(boundText('tel 138\u{E0031} 1234 5678 tail', 10)).toBe('tel');
    expect(boundText('tel 138 \u{E0031}1234 5678 tail', 8)).toBe('tel');
    expect(boundText('tel 139\u{E0031}12345678 tail', 8)).toBe('tel');
    expect(boundText('tel 139\u{E0031}12345678 tail', 9)).toBe('tel');
    expect(boundText('ab\u{E0100} cd ef', 5)).toBe('[MASKED:oversized]');
  });

  it('never cuts a surrogate pair in two', () => {
    // An emoji, like CJK text, is a place to cut before, never between its units.
    expect(boundText('ab 😀😀', 4)).toBe('ab ');
    expect(boundText('ab 😀😀', 5)).toBe('ab 😀');
    expect(boundText('ab 😀 😀', 6)).toBe('ab 😀 ');
  });

  it('cuts before a lone surrogate as before any other character no value contains, never between a real pair', () => {
    // A lone high surrogate before a break: the break is the cut.
    expect(boundText('ab\ud83d cd', 4)).toBe('ab\ud83d');
    // A lone low surrogate (after a letter) and one after another low surrogate are places to cut.
    expect(boundText('ab\ude00cd', 3)).toBe('ab');
    expect(boundText('ab\ude00\ude00cd', 4)).toBe('ab\ude00');
    // A private-use character (above the surrogates) after a high surrogate is no low half.
    expect(boundText('ab\ud83d\ue000cd', 4)).toBe('ab\ud83d');
    // Pairs at the edges of the surrogate ranges (U+10000, U+10FC00, U+1F400, U+1FFFF) are never cut in two.
    for (const pair of ['\ud800\udc00', '\udbff\udc00', '\ud83d\udc00', '\ud83f\udfff']) {
      expect(boundText(`ab${pair}cd`, 4), pair).toBe('ab');
    }
    expect(boundText('ab 😀c', 4)).toBe('ab ');
  });

  it('moves the cut before the whole run of digits and separators, also over separators no window joins', () => {
    expect(boundText('tel 138 - 1234 5678', 14)).toBe('tel');
    // Two spaces between groups: the cut at either of them moves before the number.
    expect(boundText('tel 138  1234 5678', 7)).toBe('tel');
    expect(boundText('tel 138  1234 5678', 8)).toBe('tel');
  });

  it('cuts after a number that a letter or a comma ends', () => {
    expect(boundText('id 12x 3456 7890', 6)).toBe('id 12x');
    expect(boundText('n 12, 34 56', 4)).toBe('n 12');
  });

  it('masks the text whole when a number starting at its first character crosses the bound', () => {
    expect(boundText('8 1234 5678 tail', 4)).toBe('[MASKED:oversized]');
  });

  it('masks the text whole when its only break before the bound is its first character', () => {
    expect(boundText(' xxxxxxxxxxx', 10)).toBe('[MASKED:oversized]');
  });

  it('treats every ASCII character but the breaks as part of a value, DEL included', () => {
    expect(boundText('a b\x7fcdefgh', 3)).toBe('a');
  });

  it.each([...' \t\n,;"\'<>()[]{}|`'])('cuts at the break %j', (character) => {
    expect(boundText(`ab${character}cdefghijk`, 5)).toBe('ab');
  });

  it('masks a text with no place to cut before the bound whole', () => {
    expect(boundText('x'.repeat(11), 10)).toBe('[MASKED:oversized]');
    expect(boundText('１'.repeat(11), 10)).toBe('[MASKED:oversized]');
  });
});
