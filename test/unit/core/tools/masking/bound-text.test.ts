import { describe, expect, it } from 'vitest';
import { boundText } from '../../../../../packages/core/src/tools/masking/bound-text.ts';

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
    const cut = boundText(text, 16_384);
    expect(cut).not.toMatch(/\d/);
  });

  it('masks a text with no place to cut before the bound whole', () => {
    expect(boundText('x'.repeat(11), 10)).toBe('[MASKED:oversized]');
    expect(boundText('１'.repeat(11), 10)).toBe('[MASKED:oversized]');
  });
});
