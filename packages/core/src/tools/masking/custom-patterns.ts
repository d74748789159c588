import type { RE2JS } from 're2js';
import { type MaskingPatternSetting, PSEUDONYM_KIND_PATTERN } from '../../config/masking-settings.ts';
import { SettingsError } from '../../errors.ts';
import type { IdentifierMatch } from './identifier-detectors.ts';

/** The deployer's rules, compiled once per cold start. */
export interface CustomRules {
  /** The kinds the patterns name (a `[MASKED:kind]` marker of one is the session's own, kept whole). */
  kinds: readonly string[];
  find(text: string): IdentifierMatch[];
  isExcluded(value: string): boolean;
}

/** The rules of a stage that defines no patterns and no exclusions. */
export const NO_CUSTOM_RULES: CustomRules = Object.freeze({
  kinds: [],
  find: () => [],
  isExcluded: () => false,
});

/**
 * Compiles the stage's `MASKING_PATTERNS` and `MASKING_EXCLUSIONS` (once per cold start). A pattern RE2 refuses fails
 * with a SettingsError naming its key (the deploy refuses it first, by the same check).
 *
 * NOTE: RE2JS is imported only when there is something to compile: most stages define no pattern, and importing it
 * is about 28 M instructions of a cold start (BENCHMARKS.md at e6e6fa5).
 */
export async function loadCustomRules(
  patterns: readonly MaskingPatternSetting[] = [],
  exclusions: readonly string[] = [],
): Promise<CustomRules> {
  if (patterns.length === 0 && exclusions.length === 0) return NO_CUSTOM_RULES;
  const { compileLinearPattern } = await import('../../config/linear-pattern.ts');
  const compiledPatterns = patterns.map((entry) => {
    const compiled = compileLinearPattern(entry.pattern);
    if (compiled === null || !PSEUDONYM_KIND_PATTERN.test(entry.kind)) throw new SettingsError(['MASKING_PATTERNS']);
    return { kind: entry.kind, compiled };
  });
  const compiledExclusions = exclusions.map((pattern) => {
    const compiled = compileLinearPattern(pattern);
    if (compiled === null) throw new SettingsError(['MASKING_EXCLUSIONS']);
    return compiled;
  });
  return rulesOf(compiledPatterns, compiledExclusions);
}

function rulesOf(patterns: readonly { kind: string; compiled: RE2JS }[], exclusions: readonly RE2JS[]): CustomRules {
  return {
    kinds: patterns.map((pattern) => pattern.kind),
    find(text) {
      const found: IdentifierMatch[] = [];
      for (const { kind, compiled } of patterns) {
        const matcher = compiled.matcher(text);
        // NOTE: a group named `value` is what is masked, so a structured field keeps its key readable
        // (`receiver_name=<person_name:k3f2a>`); without one, the whole match is.
        const group = Object.hasOwn(matcher.namedGroups, 'value') ? 'value' : 0;
        while (matcher.find()) {
          const start = matcher.start(group);
          const end = matcher.end(group);
          if (start >= 0 && end > start) found.push({ start, end, kind });
        }
      }
      return found;
    },
    isExcluded: (value) => exclusions.some((compiled) => compiled.matches(value)),
  };
}
