import { matchesGlob } from '@diagnosis/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

/** The reference meaning of a `*` glob, by regular expression (fine for the short strings generated here). */
const reference = (pattern: string, text: string) =>
  new RegExp(
    `^${pattern
      .split('*')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
    's',
  ).test(text);

describe('matchesGlob', () => {
  it.each([
    ['E1001-*', 'E1001-payment-5xx', true],
    ['E1001-*', 'E2002-payment-5xx', false],
    ['*-5xx', 'E1001-payment-5xx', true],
    ['E1001-*-5xx', 'E1001-5xx', false],
    ['E1001-*-5xx', 'E1001--5xx', true],
    ['a*b*c', 'abc', true],
    ['a*b*c', 'acb', false],
    ['exact', 'exact', true],
    ['exact', 'exactly', false],
    ['*', '', true],
    ['a**b', 'ab', true],
    ['ab*ba', 'aba', false],
  ])('matches %s against %s: %s', (pattern, text, expected) => {
    expect(matchesGlob(pattern, text)).toBe(expected);
  });

  it('agrees with the regular-expression meaning of * on any pattern and text', () => {
    const alphabet = fc.constantFrom('a', 'b', '*', '-', '.');
    fc.assert(
      fc.property(
        fc.string({ unit: alphabet, maxLength: 12 }),
        fc.string({ unit: alphabet, maxLength: 16 }),
        (p, t) => {
          const text = t.replaceAll('*', 'a');
          expect(matchesGlob(p, text)).toBe(reference(p, text));
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('answers a pattern built to make a backtracking matcher explode, on a long text, without backtracking', () => {
    const pattern = `${'a*'.repeat(100)}b`;
    const text = 'a'.repeat(100_000);
    // NOTE: a count of work, not a clock: the linear matcher looks at each part once.
    expect(matchesGlob(pattern, text)).toBe(false);
    expect(matchesGlob(pattern, `${text}b`)).toBe(true);
  });
});
