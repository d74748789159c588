import { RE2JS } from 're2js';

/**
 * A deployer's pattern compiled with RE2JS (RE2's linear-time engine in pure JavaScript: no backtracking, so no
 * pattern can hang a run however hostile the text it scans), or null when it does not compile (RE2 has no
 * backreferences or lookaround) or matches the empty string.
 *
 * NOTE: its own module, imported statically only by the deploy check and dynamically by the masking rules' loader,
 * and only when a stage defines patterns: importing RE2JS costs about 28 M instructions, and most stages have none,
 * so the settings parse every cold start runs does not load it.
 */
export function compileLinearPattern(pattern: string): RE2JS | null {
  try {
    const compiled = RE2JS.compile(pattern);
    return compiled.matches('') ? null : compiled;
  } catch {
    return null;
  }
}

/** The masking settings that hold a pattern `compileLinearPattern` refuses (the deploy check names them). */
export function unusableMaskingKeys(settings: {
  MASKING_PATTERNS: readonly { pattern: string }[];
  MASKING_EXCLUSIONS: readonly string[];
}): ('MASKING_PATTERNS' | 'MASKING_EXCLUSIONS')[] {
  const unusable = (patterns: readonly string[]) => patterns.some((pattern) => compileLinearPattern(pattern) === null);
  return [
    ...(unusable(settings.MASKING_PATTERNS.map((entry) => entry.pattern)) ? (['MASKING_PATTERNS'] as const) : []),
    ...(unusable(settings.MASKING_EXCLUSIONS) ? (['MASKING_EXCLUSIONS'] as const) : []),
  ];
}
