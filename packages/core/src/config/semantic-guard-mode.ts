/**
 * The SemanticGuard's modes: `enforce` (its verdicts decide what is published), `shadow` (its verdicts are recorded
 * and shown, the release is unchanged) and `off` (no judge call). NOTE: the values of a setting (SEMANTIC_GUARD), so
 * they live beside the settings schema, like the masking modes; the release reads the mode it is given.
 */
export const SEMANTIC_GUARD_MODES = Object.freeze(['enforce', 'shadow', 'off'] as const);
export type SemanticGuardMode = (typeof SEMANTIC_GUARD_MODES)[number];
