/**
 * The settings each command reads, by name only (no schema is loaded here: every command's module imports this, and
 * `diagnosis --version` must stay cheap). Their help lines, with their forms, are setting-help.ts's.
 */

/** The settings a command that runs a diagnosis reads. */
export const DIAGNOSIS_SETTINGS = [
  'DIAGNOSIS_MODEL_PROFILE',
  'DIAGNOSIS_MODEL_API_KEY',
  'DIAGNOSIS_MODEL_BASE_URL',
  'DIAGNOSIS_MODEL_ID',
  'DIAGNOSIS_MODEL_TIMEOUT_MS',
  'DIAGNOSIS_MAX_QUERY_BYTES',
  'SEMANTIC_GUARD',
  'SEMANTIC_GUARD_MODEL_PROFILE',
  'SEMANTIC_GUARD_MODEL_ID',
  'MYSQL_URL',
  'DIAGNOSIS_TIMEZONE',
] as const;

/** The settings every command that reads or writes the table reads. */
export const STORE_SETTINGS = ['DYNAMODB_ENDPOINT', 'DIAGNOSIS_TABLE_NAME', 'DIAGNOSIS_LOCAL_DATA'] as const;

/** The settings a command that masks what it stores reads (the local runs' masking: a rating is masked the same). */
export const MASKING_SETTINGS = ['MASKING', 'MASKING_PATTERNS', 'MASKING_EXCLUSIONS', 'MASKING_SECRET'] as const;

/** The settings of what a rating keeps beside the rating itself (its past incident, its new pseudonyms). */
export const RATING_SETTINGS = [
  'PAST_INCIDENT_RETENTION_DAYS',
  'PSEUDONYM_RETENTION_DAYS',
  'REASONING_RETENTION_DAYS',
] as const;
