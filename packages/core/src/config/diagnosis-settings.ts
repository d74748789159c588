import * as v from 'valibot';
import { tenantAccessSchema } from '../access/tenant-access.ts';
import {
  badKeys,
  type EvidenceSettings,
  parseEvidenceSettings,
  pickDefined,
  SettingsError,
} from './evidence-settings.ts';

const integer = (minimum: number) =>
  v.pipe(v.string(), v.regex(/^\d+$/), v.transform(Number), v.safeInteger(), v.minValue(minimum));

/** Settings of the service besides the evidence backends (environment variable names as in the README). */
const serviceSettingsSchema = v.object({
  DIAGNOSIS_TABLE_NAME: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_.-]{3,255}$/)),
  DYNAMODB_ENDPOINT: v.optional(v.pipe(v.string(), v.url())),
  DIAGNOSIS_MODEL_BASE_URL: v.optional(
    v.pipe(v.string(), v.url(), v.regex(/^https?:\/\//)),
    'https://api.deepseek.com/v1',
  ),
  DIAGNOSIS_MODEL_ID: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(200)), 'deepseek-v4-flash'),
  DIAGNOSIS_MODEL_API_KEY: v.pipe(v.string(), v.minLength(1)),
  RETENTION_DAYS: v.optional(integer(1), '90'),
  REASONING_RETENTION_DAYS: v.optional(integer(1), '30'),
  /** The tenant access policy (JSON, see `canAccessTenant`); unset: every IAM caller may use every enterprise. */
  TENANT_ACCESS: v.optional(tenantAccessSchema),
  FLUSH_RESERVE_MS: v.optional(integer(0), '3000'),
  DIAGNOSIS_MAX_MODEL_CALLS: v.optional(integer(1)),
  DIAGNOSIS_MAX_TOTAL_TOKENS: v.optional(integer(1)),
  DIAGNOSIS_MAX_TOOL_CALLS: v.optional(integer(1)),
  DIAGNOSIS_FINAL_ROUND_RESERVE_MS: v.optional(integer(0)),
});

export type DiagnosisSettings = v.InferOutput<typeof serviceSettingsSchema> & EvidenceSettings;

/**
 * All settings of the Lambda, parsed once per cold start from its environment (the handler merges in SST's linked
 * resources first). A bad or missing value fails the cold start with a SettingsError that names the keys and never
 * their values, which may be secrets.
 */
export function parseDiagnosisSettings(environment: Record<string, string | undefined>): DiagnosisSettings {
  const service = v.safeParse(serviceSettingsSchema, pickDefined(environment, serviceSettingsSchema));
  let evidence: EvidenceSettings | undefined;
  let evidenceKeys: string[] = [];
  try {
    evidence = parseEvidenceSettings(environment);
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
    evidenceKeys = [...error.keys];
  }
  const keys = [...(service.success ? [] : badKeys(service.issues)), ...evidenceKeys];
  if (!service.success || evidence === undefined || keys.length > 0) throw new SettingsError(keys);
  return { ...service.output, ...evidence };
}

/** The run limits the settings override. */
export function limitsOf(settings: DiagnosisSettings) {
  return {
    ...(settings.DIAGNOSIS_MAX_MODEL_CALLS === undefined ? {} : { maxModelCalls: settings.DIAGNOSIS_MAX_MODEL_CALLS }),
    ...(settings.DIAGNOSIS_MAX_TOTAL_TOKENS === undefined
      ? {}
      : { maxTotalTokens: settings.DIAGNOSIS_MAX_TOTAL_TOKENS }),
    ...(settings.DIAGNOSIS_MAX_TOOL_CALLS === undefined ? {} : { maxToolCalls: settings.DIAGNOSIS_MAX_TOOL_CALLS }),
    ...(settings.DIAGNOSIS_FINAL_ROUND_RESERVE_MS === undefined
      ? {}
      : { finalRoundReserveMs: settings.DIAGNOSIS_FINAL_ROUND_RESERVE_MS }),
  };
}

const storeSettingsSchema = v.object({
  DIAGNOSIS_TABLE_NAME: serviceSettingsSchema.entries.DIAGNOSIS_TABLE_NAME,
  DYNAMODB_ENDPOINT: serviceSettingsSchema.entries.DYNAMODB_ENDPOINT,
  TENANT_ACCESS: serviceSettingsSchema.entries.TENANT_ACCESS,
});

export type StoreSettings = v.InferOutput<typeof storeSettingsSchema>;

/** The settings of the read, audit and reasoning functions: the table and the tenant access policy. */
export function parseStoreSettings(environment: Record<string, string | undefined>): StoreSettings {
  const result = v.safeParse(storeSettingsSchema, pickDefined(environment, storeSettingsSchema));
  if (!result.success) throw new SettingsError(badKeys(result.issues));
  return result.output;
}
