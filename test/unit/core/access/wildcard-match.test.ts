import { canAccessTenant, parseTenantAccess } from '@diagnosis/core/config';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countWildcardMatch, matchesWildcard } from '../../../../packages/core/src/access/wildcard-match.ts';

/** What `*` never matches: the line terminators of JavaScript's `.` (issue 32 item 14). */
const LINE_TERMINATORS = ['\n', '\r', '\u2028', '\u2029'];

/**
 * The reference: the textbook dynamic programme over (pattern prefix, text prefix), quadratic and obviously right;
 * `*` absorbs any character but a line terminator.
 */
function referenceMatch(pattern: string, text: string): boolean {
  let row = Array.from({ length: text.length + 1 }, (_, index) => index === 0);
  for (const character of pattern) {
    const next = new Array<boolean>(text.length + 1).fill(false);
    next[0] = character === '*' && row[0] === true;
    for (let index = 1; index <= text.length; index++) {
      next[index] =
        character === '*'
          ? row[index] === true || (next[index - 1] === true && !LINE_TERMINATORS.includes(text[index - 1] ?? ''))
          : row[index - 1] === true && text[index - 1] === character;
    }
    row = next;
  }
  return row[text.length] === true;
}

/**
 * The matcher this one replaced (a RegExp built from the pattern, `.*` without the `s` flag, so never across a line
 * terminator): a second reference, on small inputs only.
 */
function previousRegexMatch(pattern: string, text: string): boolean {
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}$`).test(text);
}

const small = (alphabet: string[], maxLength: number) =>
  fc.array(fc.constantFrom(...alphabet), { maxLength }).map((characters) => characters.join(''));

describe('matchesWildcard', () => {
  it('agrees with the reference on every pattern and name over a small alphabet', () => {
    fc.assert(
      fc.property(small(['a', 'b', '-', '*'], 12), small(['a', 'b', '-'], 24), (pattern, text) => {
        expect(matchesWildcard(pattern, text)).toBe(referenceMatch(pattern, text));
        expect(matchesWildcard(pattern, text)).toBe(previousRegexMatch(pattern, text));
      }),
      { numRuns: 2_000 },
    );
  });

  it('agrees with both references when patterns and names hold line terminators', () => {
    fc.assert(
      fc.property(
        small(['a', '\n', '\u2028', '*'], 10),
        small(['a', '\n', '\r', '\u2028', '\u2029'], 20),
        (pattern, text) => {
          expect(matchesWildcard(pattern, text)).toBe(referenceMatch(pattern, text));
          expect(matchesWildcard(pattern, text)).toBe(previousRegexMatch(pattern, text));
        },
      ),
      { numRuns: 2_000, seed: 3214 },
    );
  });

  it('agrees with the reference on names built from the pattern (mostly matches) and near misses', () => {
    const built = fc
      .tuple(
        fc.array(small(['a', 'b', '-', '.', '/'], 4), { minLength: 1, maxLength: 6 }),
        fc.array(small(['a', '-', 'b'], 5), { maxLength: 6 }),
        fc.nat(3),
      )
      .map(([segments, fillers, mutation]) => {
        const pattern = segments.join('*');
        let text = segments.map((segment, index) => `${segment}${fillers[index] ?? ''}`).join('');
        if (mutation === 1) text = text.slice(1);
        if (mutation === 2) text = `${text}x`;
        return { pattern, text };
      });
    fc.assert(
      fc.property(built, ({ pattern, text }) => {
        expect(matchesWildcard(pattern, text)).toBe(referenceMatch(pattern, text));
      }),
      { numRuns: 2_000 },
    );
  });

  it.each([
    ['no star: equal', 'abc', 'abc', true],
    ['no star: a prefix is not enough', 'abc', 'abcd', false],
    ['no star: empty against empty', '', '', true],
    ['no star: empty against text', '', 'a', false],
    ['a lone star matches the empty name', '*', '', true],
    ['a lone star matches anything', '*', 'arn:aws:iam::1:role/x', true],
    ['all stars', '*****', 'abc', true],
    ['a double star is one star', 'a**c', 'abbbc', true],
    ['a double star matches nothing between', 'a**c', 'ac', true],
    ['prefix and suffix may not overlap', 'ab*ba', 'aba', false],
    ['prefix and suffix exactly fill the name', 'ab*ba', 'abba', true],
    ['the suffix is anchored', 'a*b', 'abc', false],
    ['the prefix is anchored', 'a*b', 'cab', false],
    ['a middle segment must fit between prefix and suffix', 'a*bc*c', 'abc', false],
    ['leftmost middle matches leave room for the rest', 'x*aa*aab*y', 'xaaaaby', true],
    ['segments may not share characters', 'x*aa*aab*y', 'xaaby', false],
    ['a middle segment found after a partial match', 'x*abab*y', 'xabaabababy', true],
    ['regular-expression characters are text', 'a.*(b)', 'a.x(b)', true],
    ['a dot is not any character', 'a.*', 'ab', false],
    ['a star never matches a newline', 'a*b', 'a\nb', false],
    ['a star never matches a carriage return', 'a*b', 'a\rb', false],
    ['a star never matches a line separator', 'a*b', 'a\u2028b', false],
    ['a star never matches a paragraph separator', 'a*b', 'a\u2029b', false],
    ['a star never matches a terminator at the end', 'a/*', 'a/alice\nx', false],
    ['a newline in the pattern matches itself', 'a*\n*b', 'ax\nyb', true],
    ['a newline in the pattern still bounds each star', 'a*\n*b', 'ax\ny\nb', false],
  ])('%s', (_label, pattern, text, expected) => {
    expect(matchesWildcard(pattern, text)).toBe(expected);
    expect(referenceMatch(pattern, text)).toBe(expected);
  });

  it('makes a number of comparisons linear in the pattern and the name, whatever their content', () => {
    fc.assert(
      fc.property(small(['-', 'a', '*'], 64), small(['-', 'a'], 512), (pattern, text) => {
        expect(countWildcardMatch(pattern, text).steps).toBeLessThanOrEqual(3 * (pattern.length + text.length));
      }),
      { numRuns: 500 },
    );
  });
});

describe('canAccessTenant with a many-star pattern', () => {
  const prefix = 'arn:aws:sts::111122223333:assumed-role/';
  // NOTE: 11 stars; a session name of dashes that ends in the suffix but lacks the last middle segment is a near
  // miss at every split, the worst case for a backtracking matcher (the RegExp this matcher replaced needs longer than
  // the test's timeout for one check). What is measured is the comparison counter, never a clock.
  const pattern = `${prefix}*-*-*-*-*-*-*-*-*-*x*-oncall`;
  const hostile = `${prefix}${'-'.repeat(256 - prefix.length - '-oncall'.length)}-oncall`;
  const policy = parseTenantAccess(JSON.stringify([{ principal: pattern, enterprises: ['E1001'] }]));

  it('counts a few hundred comparisons for an 11-star pattern against a 256-character name of dashes', () => {
    expect(hostile).toHaveLength(256);
    const { matched, steps } = countWildcardMatch(pattern, hostile);
    expect(matched).toBe(false);
    // At least one comparison per character of the name between prefix and suffix (so a matcher that stopped
    // counting fails here), and at most linear in the pattern and the name.
    expect(steps).toBeGreaterThanOrEqual(hostile.length - prefix.length - '-oncall'.length);
    expect(steps).toBeLessThanOrEqual(3 * (pattern.length + hostile.length));
    expect(canAccessTenant(policy, { userArn: hostile }, 'E1001')).toBe(false);
    expect(canAccessTenant(policy, { userArn: `${prefix}a-b-c-d-e-f-g-h-i-jx-oncall` }, 'E1001')).toBe(true);
  });
});
