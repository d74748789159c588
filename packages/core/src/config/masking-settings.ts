import { RE2JS } from 're2js';
import * as v from 'valibot';

/** Bounds of what a deployer may write in `MASKING_PATTERNS` / `MASKING_EXCLUSIONS`. */
export const CUSTOM_PATTERN_LIMITS = Object.freeze({ patterns: 32, exclusions: 64, patternChars: 256 });

/** The kind a pseudonym names (`<customer_id:k3f2a>`). */
export const PSEUDONYM_KIND_PATTERN = /^[a-z][a-z0-9_]{0,23}$/;

/**
 * A deployer's pattern compiled with RE2JS (RE2's linear-time engine in pure JavaScript: no backtracking, so no
 * pattern can hang a run however hostile the text it scans), or null when it does not compile (RE2 has no
 * backreferences or lookaround) or matches the empty string.
 */
export function compileLinearPattern(pattern: string): RE2JS | null {
  try {
    const compiled = RE2JS.compile(pattern);
    return compiled.matches('') ? null : compiled;
  } catch {
    return null;
  }
}

const linearPattern = v.pipe(
  v.string(),
  v.minLength(1),
  v.maxLength(CUSTOM_PATTERN_LIMITS.patternChars),
  v.check((pattern) => compileLinearPattern(pattern) !== null, 'an RE2 pattern that does not match the empty string'),
);

/** `MASKING_PATTERNS`: JSON `[{ "kind": "customer_id", "pattern": "C[0-9]{8}" }, …]`, pseudonymised as `<kind:…>`. */
export const maskingPatternsSchema = v.pipe(
  v.string(),
  v.parseJson(),
  v.array(v.strictObject({ kind: v.pipe(v.string(), v.regex(PSEUDONYM_KIND_PATTERN)), pattern: linearPattern })),
  v.maxLength(CUSTOM_PATTERN_LIMITS.patterns),
);

/** `MASKING_EXCLUSIONS`: JSON `["noreply@example\\.com", "10\\.0\\.[0-9.]+"]`: identifiers matching one in full stay. */
export const maskingExclusionsSchema = v.pipe(
  v.string(),
  v.parseJson(),
  v.array(linearPattern),
  v.maxLength(CUSTOM_PATTERN_LIMITS.exclusions),
);

export type MaskingPatternSetting = { kind: string; pattern: string };
