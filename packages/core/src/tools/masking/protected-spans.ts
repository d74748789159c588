import type { IdentifierMatch } from './identifier-detectors.ts';

/**
 * What masking keeps whole in a text it masks again (masking twice changes nothing): a pseudonym this run holds
 * (`<phone:k3f2a>`) and a marker of a kind this deployment writes (`[REDACTED:password]`, `[MASKED:phone]`).
 * NOTE (issue 32, item 7): only those. A text merely shaped like one is ordinary text: `[MASKED:13912345678]`,
 * `[REDACTED:4111111111111111]` or `<x_13912345678:aaaaa>` is no marker of a known kind nor a pseudonym of the run,
 * and the value inside it is masked like any other; and a span a built-in detector finds a value in is never
 * protected (the caller drops it: a detected identifier wins).
 */
export interface ProtectedKinds {
  /** Kinds of `[MASKED:kind]`: the identifier kinds, the deployment's pattern kinds and the session's own markers. */
  masked: ReadonlySet<string>;
  /** Kinds of `[REDACTED:kind]`: the secret kinds. */
  redacted: ReadonlySet<string>;
}

/** The protected spans of `text` (kind `''`), in order; `isHeld` says whether this run holds a pseudonym. */
export function findProtectedSpans(
  text: string,
  isHeld: (token: string) => boolean,
  kinds: ProtectedKinds,
): IdentifierMatch[] {
  const spans: IdentifierMatch[] = [];
  // NOTE: built per call (V8 compiles the literal once), so its mutants are tested by the tests that mask twice. No
  // `includes('<')` shortcut first: it saved under a microsecond a text (2026-12-03), on texts the detectors had scanned.
  const candidates = /<[a-z][a-z0-9_]{0,23}:[a-z2-7]{5,13}>|\[(REDACTED|MASKED):([a-z0-9_]{1,24})\]/g;
  for (const match of text.matchAll(candidates)) {
    const [whole, layer, kind] = match;
    const known =
      layer === undefined ? isHeld(whole) : (layer === 'MASKED' ? kinds.masked : kinds.redacted).has(kind ?? '');
    if (!known) continue;
    const start = match.index;
    spans.push({ start, end: start + whole.length, kind: '' });
  }
  return spans;
}

/**
 * The protected spans that no detected identifier overlaps (a detected identifier wins). Linear: the identifiers
 * mark the characters they cover once.
 */
export function withoutDetectedIdentifiers(
  spans: readonly IdentifierMatch[],
  identifiers: readonly IdentifierMatch[],
  textLength: number,
): IdentifierMatch[] {
  // NOTE: most texts have no protected span: then nothing is allocated.
  if (spans.length === 0) return [];
  const covered = new Uint8Array(textLength + 1);
  for (const identifier of identifiers) covered.fill(1, identifier.start, identifier.end);
  return spans.filter((span) => covered.subarray(span.start, span.end).indexOf(1) === -1);
}
