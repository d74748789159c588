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

  it('masks a text with no place to cut before the bound whole', () => {
    expect(boundText('x'.repeat(11), 10)).toBe('[MASKED:oversized]');
    expect(boundText('１'.repeat(11), 10)).toBe('[MASKED:oversized]');
  });
});
