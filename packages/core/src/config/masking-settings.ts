import * as v from 'valibot';

/** Bounds of what a deployer may write in `MASKING_PATTERNS` / `MASKING_EXCLUSIONS`. */
const CUSTOM_PATTERN_LIMITS = Object.freeze({ patterns: 32, exclusions: 64, patternChars: 256 });

/** The kind a pseudonym names (`<customer_id:k3f2a>`). */
export const PSEUDONYM_KIND_PATTERN = /^[a-z][a-z0-9_]{0,23}$/;

/**
 * A pattern's shape. NOTE: whether RE2 compiles it (and that it does not match the empty string) is checked where the
 * patterns are used, with `compileLinearPattern` (linear-pattern.ts): at deploy (`parseStageConfig`) and when a cold
 * start compiles the stage's rules (`loadCustomRules`, which fails it naming the key), not here, so that a cold start
 * without patterns never loads RE2JS.
 */
const linearPattern = v.pipe(v.string(), v.minLength(1), v.maxLength(CUSTOM_PATTERN_LIMITS.patternChars));

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
