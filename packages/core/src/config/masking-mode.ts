/** `identifiers` (the default): secrets redacted and identifiers pseudonymised; `secrets-only`: secrets only. */
export const MASKING_MODES = Object.freeze(['identifiers', 'secrets-only'] as const);
export type MaskingMode = (typeof MASKING_MODES)[number];
