import { RE2JS } from 're2js';
import * as v from 'valibot';
import type { IdentifierMatch } from './identifier-detectors.ts';

/** Bounds of what a deployer may write in `MASKING_PATTERNS` / `MASKING_EXCLUSIONS`. */
export const CUSTOM_PATTERN_LIMITS = Object.freeze({ patterns: 32, exclusions: 64, patternChars: 256 });

export const PSEUDONYM_KIND_PATTERN = /^[a-z][a-z0-9_]{0,23}$/;

/**
 * A regular expression a deployer wrote, compiled with RE2JS (RE2's linear-time engine in pure JavaScript: no
 * backtracking, so no pattern can hang a run however hostile the text it scans); refused when it does not compile,
 * is too long, or matches the empty string.
 */
const linearPattern = v.pipe(
  v.string(),
  v.minLength(1),
  v.maxLength(CUSTOM_PATTERN_LIMITS.patternChars),
  v.check((pattern) => compileOrNull(pattern) !== null, 'an RE2 pattern that does not match the empty string'),
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

function compileOrNull(pattern: string): RE2JS | null {
  try {
    const compiled = RE2JS.compile(pattern);
    return compiled.matches('') ? null : compiled;
  } catch {
    return null;
  }
}

/** The deployer's rules, compiled once per cold start. */
export interface CustomRules {
  find(text: string): IdentifierMatch[];
  isExcluded(value: string): boolean;
}

export function compileCustomRules(
  patterns: readonly MaskingPatternSetting[] = [],
  exclusions: readonly string[] = [],
): CustomRules {
  const compiledPatterns = patterns.map((entry) => {
    const compiled = compileOrNull(entry.pattern);
    if (compiled === null || !PSEUDONYM_KIND_PATTERN.test(entry.kind)) {
      throw new TypeError('a masking pattern is not a valid RE2 pattern with a pseudonym kind');
    }
    return { kind: entry.kind, compiled };
  });
  const compiledExclusions = exclusions.map((pattern) => {
    const compiled = compileOrNull(pattern);
    if (compiled === null) throw new TypeError('a masking exclusion is not a valid RE2 pattern');
    return compiled;
  });
  return {
    find(text) {
      const found: IdentifierMatch[] = [];
      for (const { kind, compiled } of compiledPatterns) {
        const matcher = compiled.matcher(text);
        while (matcher.find()) {
          if (matcher.end() > matcher.start()) found.push({ start: matcher.start(), end: matcher.end(), kind });
        }
      }
      return found;
    },
    isExcluded: (value) => compiledExclusions.some((compiled) => compiled.matches(value)),
  };
}
