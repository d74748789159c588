/**
 * Whether `text` matches `pattern`, where `*` matches any run of characters (none included) and every other character
 * only itself. NOTE: linear in the lengths of both, whatever the pattern: the parts between stars are found left to
 * right with `indexOf`, the first anchored at the start and the last at the end, and no part is ever tried twice — no
 * regular expression, so no pattern can backtrack. (The tenant policy's own `*` matcher is a regular expression;
 * issue 19 replaces it with a linear one, which this one can then become.)
 */
export function matchesGlob(pattern: string, text: string): boolean {
  const parts = pattern.split('*');
  if (parts.length === 1) return pattern === text;
  const first = parts[0] ?? '';
  const last = parts.at(-1) ?? '';
  if (first.length + last.length > text.length || !text.startsWith(first) || !text.endsWith(last)) return false;
  let position = first.length;
  const end = text.length - last.length;
  for (const part of parts.slice(1, -1)) {
    if (part === '') continue;
    const found = text.indexOf(part, position);
    if (found === -1 || found + part.length > end) return false;
    position = found + part.length;
  }
  return true;
}
