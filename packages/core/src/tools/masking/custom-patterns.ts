import {
  compileLinearPattern,
  type MaskingPatternSetting,
  PSEUDONYM_KIND_PATTERN,
} from '../../config/masking-settings.ts';
import type { IdentifierMatch } from './identifier-detectors.ts';

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
    const compiled = compileLinearPattern(entry.pattern);
    if (compiled === null || !PSEUDONYM_KIND_PATTERN.test(entry.kind)) {
      throw new TypeError('a masking pattern is not a valid RE2 pattern with a pseudonym kind');
    }
    return { kind: entry.kind, compiled };
  });
  const compiledExclusions = exclusions.map((pattern) => {
    const compiled = compileLinearPattern(pattern);
    if (compiled === null) throw new TypeError('a masking exclusion is not a valid RE2 pattern');
    return compiled;
  });
  return {
    find(text) {
      const found: IdentifierMatch[] = [];
      for (const { kind, compiled } of compiledPatterns) {
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
    isExcluded: (value) => compiledExclusions.some((compiled) => compiled.matches(value)),
  };
}
