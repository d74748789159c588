import { PSEUDONYM_PATTERN, type PseudonymEntry } from './reveal-text.ts';

/** What the tool boundary made of a tool's arguments: the real values, or a refusal. */
export type UnmaskedInput = { ok: true; value: unknown } | { ok: false; code: 'UNKNOWN_PSEUDONYM' };

const NO_FIELDS: ReadonlySet<string> = new Set();

/** What the way back reads of a session: its pseudonyms, the ones it showed, and a replay's recorded ones. */
export interface UnmaskSources {
  byToken: ReadonlyMap<string, PseudonymEntry>;
  shown: ReadonlySet<string>;
  recorded: ReadonlySet<string>;
  /** How deep a JSON value is walked (deeper parts are returned as they are). */
  maxDepth: number;
}

/**
 * The tool arguments with every pseudonym replaced by its real value. NOTE: only pseudonyms the run has shown to the
 * model; one it has not (made up, from another run, or never shown) refuses the whole call. A field named in
 * `numberFields` (a MySQL parameter of type integer) that is exactly the pseudonym of a whole number gets the number
 * back (a masked numeric cell). In a replay of a recording, a pseudonym the recording holds is kept as it is (it is
 * matched against the recorded inputs as the recording saw them).
 */
export function unmaskInput(
  value: unknown,
  sources: UnmaskSources,
  numberFields: ReadonlySet<string> = NO_FIELDS,
): UnmaskedInput {
  const { byToken, shown, recorded } = sources;
  const wholeNumber = /^-?[0-9]{1,15}$/;
  let unknown = false;
  const restore = (item: unknown, depth: number, key?: string): unknown => {
    if (typeof item === 'string') {
      // NOTE: every pseudonym starts with `<`: a string without one has none to restore.
      if (!item.includes('<')) return item;
      const whole = shown.has(item) ? byToken.get(item) : undefined;
      if (whole !== undefined && key !== undefined && numberFields.has(key) && wholeNumber.test(whole.value)) {
        return Number(whole.value);
      }
      return item.replace(PSEUDONYM_PATTERN, (token) => {
        const entry = shown.has(token) ? byToken.get(token) : undefined;
        if (entry === undefined && !recorded.has(token)) unknown = true;
        return entry?.value ?? token;
      });
    }
    if (depth > sources.maxDepth) return item;
    if (Array.isArray(item)) return item.map((entry) => restore(entry, depth + 1));
    if (typeof item === 'object' && item !== null) {
      return Object.fromEntries(
        Object.entries(item).map(([entryKey, entry]) => [entryKey, restore(entry, depth + 1, entryKey)]),
      );
    }
    return item;
  };
  const restored = restore(value, 0);
  return unknown ? { ok: false, code: 'UNKNOWN_PSEUDONYM' } : { ok: true, value: restored };
}
