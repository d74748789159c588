import { canAccessTenant, parseTenantAccess } from '@diagnosis/core/config';
import { describe, expect, it } from 'vitest';
import { countWildcardMatch, matchesWildcard } from '../../../../packages/core/src/access/wildcard-match.ts';

// The matcher decides who may use an enterprise, so its core paths are checked without luck: every pattern and name
// up to a small size (the random property tests only sample a larger space), fixed ARN examples of each path, and the
// comparison counter pinned on cases where each loop counts.

/** The textbook dynamic programme over (pattern prefix, name prefix): quadratic and obviously right. */
function referenceMatch(pattern: string, text: string): boolean {
  let row = Array.from({ length: text.length + 1 }, (_, index) => index === 0);
  for (const character of pattern) {
    const next = new Array<boolean>(text.length + 1).fill(false);
    next[0] = character === '*' && row[0] === true;
    for (let index = 1; index <= text.length; index++) {
      next[index] =
        character === '*'
          ? row[index] === true || next[index - 1] === true
          : row[index - 1] === true && text[index - 1] === character;
    }
    row = next;
  }
  return row[text.length] === true;
}

/** Every string over `alphabet` of length 0 to `maxLength`. */
function allStrings(alphabet: string, maxLength: number): string[] {
  const strings = [''];
  let layer = [''];
  for (let length = 1; length <= maxLength; length++) {
    layer = layer.flatMap((prefix) => [...alphabet].map((character) => prefix + character));
    strings.push(...layer);
  }
  return strings;
}

describe('matchesWildcard', () => {
  it('agrees with the reference on every pattern over {a, b, *} up to 6 characters and every name up to 7', () => {
    const names = allStrings('ab', 7);
    const disagreements: string[] = [];
    for (const pattern of allStrings('ab*', 6)) {
      for (const name of names) {
        if (matchesWildcard(pattern, name) !== referenceMatch(pattern, name))
          disagreements.push(`${pattern} ~ ${name}`);
      }
    }
    expect(disagreements.slice(0, 5)).toEqual([]);
  });

  const role = 'arn:aws:sts::123456789012:assumed-role';
  it.each([
    // a middle segment that overlaps itself: the search must fall back inside the segment, not restart after it
    [`${role}/*/*aabb*`, `${role}/Dev/aababb`, false],
    [`${role}/*/*aabb*`, `${role}/Dev/aaabb`, true],
    [`${role}/*/*abab*`, `${role}/Dev/abaabab`, true],
    [`${role}/*/*abab*`, `${role}/Dev/ababa`, true],
    [`${role}/*/*abab*`, `${role}/Dev/abaab`, false],
    // a segment whose failure table needs a border of a border (found by searching every 7-letter needle)
    [`${role}/*/*aabaaaa*`, `${role}/Dev/aabaaabaaaa`, true],
    [`${role}/*/*aabaaaa*`, `${role}/Dev/aabaaabaaab`, false],
    // the prefix and the suffix are anchored; segments are found in order and may not share characters
    [`${role}/Ops*/*`, `${role}/Ops/alice`, true],
    [`${role}/Ops*/*`, `${role}/Dev/Ops/alice`, false],
    [`${role}/*/alice`, `${role}/Ops/alice-x`, false],
    [`${role}/*-oncall/*-x*`, `${role}/a-oncall/b-x`, true],
    [`${role}/*-oncall/*-x*`, `${role}/a-oncall/b-`, false],
    [`${role}/*aa*aab*`, `${role}/aaab`, false],
    [`${role}/*aa*aab*`, `${role}/aaaab`, true],
  ])('%s against %s: %s', (pattern, name, expected) => {
    expect(matchesWildcard(pattern, name)).toBe(expected);
    expect(referenceMatch(pattern, name)).toBe(expected);
  });
});

describe('countWildcardMatch', () => {
  it.each([
    // no star: one comparison a character, stopping at the first difference
    ['abc', 'abc', true, 3],
    ['abc', 'xbc', false, 1],
    // prefix and suffix only
    ['a*c', 'abbc', true, 2],
    ['*', 'anything', true, 0],
    ['ab*cd', 'ab', false, 0],
    // a middle segment of one character: the scan only
    ['x*ab*y', 'xzzaby', true, 7],
    // a middle segment that overlaps itself: the failure table's steps and the scan's fall-backs count too
    ['x*aab*y', 'xaaaby', true, 10],
    ['*abab*', 'abaabab', true, 12],
  ])('counts %s against %s (%s) as %i comparisons', (pattern, name, matched, steps) => {
    expect(countWildcardMatch(pattern, name)).toEqual({ matched, steps });
  });

  // Lines: each terminator the two share is one comparison, and each line is matched on its own characters only
  // (a line cut wrong, e.g. running to the end of the name, costs more comparisons than these).
  it.each([
    ['two lines', 'a\nb', 'a\nb', true, 3],
    ['three lines', 'a\nb\nc', 'a\nb\nc', true, 5],
    ['stars on both lines', 'a*\n*b', 'ax\nyb', true, 3],
    ['a line separator', 'a\u2028*', 'a\u2028bc', true, 2],
    ['the second line differs', 'a\nb', 'a\nc', false, 3],
    ['another terminator: the terminator comparison only', 'a\rb', 'a\nb', false, 1],
    ['more lines in the pattern: refused before any comparison', 'a\nb', 'a', false, 0],
    ['more lines in the name: refused before any comparison', 'a', 'a\nb', false, 0],
  ])('counts %s (%j against %j, %s) as %i comparisons', (_label, pattern, name, matched, steps) => {
    expect(countWildcardMatch(pattern, name)).toEqual({ matched, steps });
  });

  it('counts a scan of the whole name for a many-star pattern whose last middle segment is missing', () => {
    const prefix = 'arn:aws:sts::111122223333:assumed-role/';
    const pattern = `${prefix}*-*-*-*-*-*-*-*-*-*-x*-oncall`;
    const name = `${prefix}${'-'.repeat(200)}-oncall`;
    const { matched, steps } = countWildcardMatch(pattern, name);
    expect(matched).toBe(false);
    // Every character between the prefix and the suffix is looked at at least once, and the total stays linear.
    expect(steps).toBeGreaterThanOrEqual(200);
    expect(steps).toBeLessThanOrEqual(3 * (pattern.length + name.length));
    expect(
      canAccessTenant(
        parseTenantAccess(JSON.stringify([{ principal: pattern, enterprises: ['E1001'] }])),
        { userArn: name },
        'E1001',
      ),
    ).toBe(false);
  });
});
