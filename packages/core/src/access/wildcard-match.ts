/**
 * The `*` wildcard of the tenant policy's ARN patterns, matched in time linear in the pattern and the name.
 *
 * Why not a regular expression: `^a.*-.*-.*b$` backtracks, and the name being matched is the caller's own ARN, whose
 * role session name the caller picks; a 6-star pattern against 64 dashes took about a second per check, on every
 * route. Why not a library: the glob matchers on npm that were checked (`matcher`, `wildcard-match`, `picomatch`,
 * `micromatch`, `minimatch`, `zeptomatch`) all compile the pattern to a RegExp.
 *
 * The algorithm: only `*` is special, so the pattern is literal segments between stars. With no star the name must
 * equal the pattern; otherwise the first segment must be a prefix, the last a suffix (not overlapping the prefix),
 * and each middle segment is found leftmost-first (Knuth–Morris–Pratt) after the previous one's match. Taking the
 * leftmost match of each middle segment is never wrong: any later match leaves less room for the segments after it.
 */

/**
 * Whether `text` matches `pattern`, where `*` matches any run of characters but a line terminator (`\n`, `\r`,
 * U+2028, U+2029; empty too) and nothing else is special. NOTE: a star stops at a line terminator like the `.*` of the
 * regular expression this matcher replaced, so `…/OpsE1001/*` never takes `…/OpsE1001/alice\nx` (issue 32 item 14).
 */
export function matchesWildcard(pattern: string, text: string): boolean {
  return countWildcardMatch(pattern, text).matched;
}

/**
 * {@link matchesWildcard} with the number of character comparisons it made: at most about twice the pattern's length
 * plus twice the name's, whatever their content. Tests measure the matcher by this count, not by a clock.
 * Since no star crosses a line terminator, the pattern and the name are cut at their terminators: they match when
 * they have the same terminators in the same order and each line of the name matches the pattern's line.
 */
export function countWildcardMatch(pattern: string, text: string): { matched: boolean; steps: number } {
  const patternLines = splitLines(pattern);
  const textLines = splitLines(text);
  if (patternLines.length !== textLines.length) return { matched: false, steps: 0 };
  let steps = 0;
  for (let index = 0; index < patternLines.length; index++) {
    const patternLine = patternLines[index] ?? { line: '', terminator: '' };
    const textLine = textLines[index] ?? { line: '', terminator: '' };
    if (patternLine.terminator !== '' || textLine.terminator !== '') steps++;
    if (patternLine.terminator !== textLine.terminator) return { matched: false, steps };
    const line = countLineMatch(patternLine.line, textLine.line);
    steps += line.steps;
    if (!line.matched) return { matched: false, steps };
  }
  return { matched: true, steps };
}

const isLineTerminator = (code: number) => code === 0x0a || code === 0x0d || code === 0x2028 || code === 0x2029;

/** The lines of `text` with the terminator that ends each (`''` for the last). */
function splitLines(text: string): { line: string; terminator: string }[] {
  const lines: { line: string; terminator: string }[] = [];
  let start = 0;
  for (let index = 0; index < text.length; index++) {
    if (!isLineTerminator(text.charCodeAt(index))) continue;
    lines.push({ line: text.slice(start, index), terminator: text.charAt(index) });
    start = index + 1;
  }
  lines.push({ line: text.slice(start), terminator: '' });
  return lines;
}

/** One line of the pattern against one line of the name (neither holds a line terminator). */
function countLineMatch(pattern: string, text: string): { matched: boolean; steps: number } {
  const segments = pattern.split('*');
  let steps = 0;
  const equalAt = (segment: string, at: number) => {
    for (let index = 0; index < segment.length; index++) {
      steps++;
      if (text.charCodeAt(at + index) !== segment.charCodeAt(index)) return false;
    }
    return true;
  };
  const first = segments[0] ?? '';
  if (segments.length === 1) {
    return { matched: text.length === first.length && equalAt(first, 0), steps };
  }
  const last = segments[segments.length - 1] ?? '';
  if (first.length + last.length > text.length) return { matched: false, steps };
  if (!equalAt(first, 0) || !equalAt(last, text.length - last.length)) return { matched: false, steps };
  let position = first.length;
  const end = text.length - last.length;
  for (let index = 1; index < segments.length - 1; index++) {
    const segment = segments[index] ?? '';
    if (segment === '') continue;
    const found = indexOfFrom(segment, text, position, end, () => steps++);
    if (found < 0) return { matched: false, steps };
    position = found + segment.length;
  }
  return { matched: true, steps };
}

/** The first index `i` in `[from, end - needle.length]` where `needle` occurs in `text`, or -1 (Knuth–Morris–Pratt). */
function indexOfFrom(needle: string, text: string, from: number, end: number, step: () => void): number {
  const failure = new Int32Array(needle.length);
  for (let index = 1, matched = 0; index < needle.length; index++) {
    step();
    while (matched > 0 && needle.charCodeAt(index) !== needle.charCodeAt(matched)) {
      step();
      matched = failure[matched - 1] ?? 0;
    }
    if (needle.charCodeAt(index) === needle.charCodeAt(matched)) matched++;
    failure[index] = matched;
  }
  for (let index = from, matched = 0; index < end; index++) {
    step();
    while (matched > 0 && text.charCodeAt(index) !== needle.charCodeAt(matched)) {
      step();
      matched = failure[matched - 1] ?? 0;
    }
    if (text.charCodeAt(index) === needle.charCodeAt(matched)) matched++;
    if (matched === needle.length) return index - needle.length + 1;
  }
  return -1;
}
