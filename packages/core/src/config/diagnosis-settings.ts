import * as v from 'valibot';
import { tenantAccessSchema } from '../access/tenant-access.ts';
import { DEFAULT_TENANT_MAX_OPEN_RUNS, MAX_TENANT_MAX_OPEN_RUNS } from '../access/tenant-admission.ts';
import { DEFAULT_AUDIT_WRITES_IN_FLIGHT, MAX_AUDIT_WRITES_IN_FLIGHT } from '../run/audit-write-limits.ts';
import { SEMANTIC_GUARD_MODES } from '../run/judge-limits.ts';
import {
  RUN_LIMIT_SETTINGS,
  type RunLimitSetting,
  type RunLimits,
  runLimitMaximum,
  runLimitMinimum,
  runLimitsFromSettings,
} from '../run/run-limits.ts';
import { DEFAULT_TIME_ZONE, isTimeZone } from '../run/zoned-time.ts';
import {
  badKeys,
  type EvidenceSettings,
  evidenceSettingsSchema,
  parseEvidenceSettings,
  pickDefined,
  SettingsError,
} from './evidence-settings.ts';

const integer = (minimum: number) =>
  v.pipe(v.string(), v.regex(/^\d+$/), v.transform(Number), v.safeInteger(), v.minValue(minimum));

const integerUpTo = (minimum: number, maximum: number | null) =>
  v.pipe(integer(minimum), v.maxValue(maximum ?? Number.MAX_SAFE_INTEGER));

/** One optional integer setting per run limit, with the limit's own range. */
function limitSettingEntries() {
  const entries = {} as Record<RunLimitSetting, v.OptionalSchema<ReturnType<typeof integerUpTo>, undefined>>;
  for (const [setting, limit] of Object.entries(RUN_LIMIT_SETTINGS) as [RunLimitSetting, keyof RunLimits][]) {
    entries[setting] = v.optional(integerUpTo(runLimitMinimum(limit), runLimitMaximum(limit)));
  }
  return entries;
}

/** The model endpoint when DIAGNOSIS_MODEL_BASE_URL is unset: DeepSeek's OpenAI-compatible API. */
export const DEFAULT_MODEL_BASE_URL = 'https://api.deepseek.com/v1';

/** Settings of the service besides the evidence backends (environment variable names as in the README). */
const serviceSettingsSchema = v.object({
  DIAGNOSIS_TABLE_NAME: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_.-]{3,255}$/)),
  DYNAMODB_ENDPOINT: v.optional(v.pipe(v.string(), v.url())),
  DIAGNOSIS_MODEL_BASE_URL: v.optional(v.pipe(v.string(), v.url(), v.regex(/^https?:\/\//)), DEFAULT_MODEL_BASE_URL),
  DIAGNOSIS_MODEL_ID: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(200)), 'deepseek-v4-flash'),
  DIAGNOSIS_MODEL_API_KEY: v.pipe(v.string(), v.minLength(1)),
  /** The SemanticGuard: `enforce` (deployments' default), `shadow` (verdicts recorded, release unchanged) or `off`. */
  SEMANTIC_GUARD: v.optional(v.picklist(SEMANTIC_GUARD_MODES), 'enforce'),
  /** The judge's model id, on the same endpoint and key; unset: DIAGNOSIS_MODEL_ID (a separate call all the same). */
  SEMANTIC_GUARD_MODEL_ID: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(200))),
  RETENTION_DAYS: v.optional(integer(1), '90'),
  REASONING_RETENTION_DAYS: v.optional(integer(1), '30'),
  /** How often a running invocation reads its cancel flag (a small consistent read). */
  DIAGNOSIS_CANCEL_POLL_MS: v.optional(integer(100), '2000'),
  /** The tenant access policy (JSON, see `canAccessTenant`); unset: every IAM caller may use every enterprise. */
  TENANT_ACCESS: v.optional(tenantAccessSchema),
  FLUSH_RESERVE_MS: v.optional(integer(0), '3000'),
  /** Audit puts one run has in flight at once (its store's write-behind queue; same-key writes keep their order). */
  AUDIT_MAX_WRITES_IN_FLIGHT: v.optional(
    integerUpTo(1, MAX_AUDIT_WRITES_IN_FLIGHT),
    String(DEFAULT_AUDIT_WRITES_IN_FLIGHT),
  ),
  /** Runs of one enterprise in progress at once, enforced with lease items in the table (see TenantLeaseStore). */
  TENANT_MAX_CONCURRENT_RUNS: v.optional(v.pipe(integer(1), v.maxValue(256)), '4'),
  /** Runs of one enterprise QUEUED or RUNNING at once (admission control at start; see the README, "Operations"). */
  TENANT_MAX_OPEN_RUNS: v.optional(
    v.pipe(integer(1), v.maxValue(MAX_TENANT_MAX_OPEN_RUNS)),
    String(DEFAULT_TENANT_MAX_OPEN_RUNS),
  ),
  /** The deployment's IANA time zone: the model reads the run's start time in it ("从 14:05 开始" is today there). */
  DIAGNOSIS_TIMEZONE: v.optional(
    v.pipe(
      v.string(),
      v.check((zone: string) => isTimeZone(zone)),
    ),
    DEFAULT_TIME_ZONE,
  ),
  ...limitSettingEntries(),
});

export type DiagnosisSettings = v.InferOutput<typeof serviceSettingsSchema> & EvidenceSettings;

/**
 * The name of every setting `parseDiagnosisSettings` reads, taken from its schemas: the deploy's per-stage file may
 * name exactly these (less what the deploy itself provides), so a typo is refused instead of silently ignored.
 */
export const DIAGNOSIS_SETTING_KEYS = Object.freeze([
  ...Object.keys(serviceSettingsSchema.entries),
  ...Object.keys(evidenceSettingsSchema.entries),
] as DiagnosisSettingKey[]);

/** The name of one setting of `parseDiagnosisSettings`. */
export type DiagnosisSettingKey =
  | keyof typeof serviceSettingsSchema.entries
  | keyof typeof evidenceSettingsSchema.entries;

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
  return runLimitsFromSettings(settings);
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

const stateMachineArn = v.pipe(
  v.string(),
  v.regex(/^arn:aws[a-z-]*:states:[a-z0-9-]+:\d{12}:stateMachine:[A-Za-z0-9_-]{1,80}$/),
);

const workflowSettingsSchema = v.object({
  ...storeSettingsSchema.entries,
  /** The DiagnosisWorkflow state machine; unset (local runs, tests): runs start in this process instead. */
  DIAGNOSIS_WORKFLOW_ARN: v.optional(stateMachineArn),
  /** The DiagnosisBatch state machine: its Distributed Map's child executions' events are handled too. */
  DIAGNOSIS_BATCH_ARN: v.optional(stateMachineArn),
  TENANT_MAX_OPEN_RUNS: serviceSettingsSchema.entries.TENANT_MAX_OPEN_RUNS,
  FLUSH_RESERVE_MS: serviceSettingsSchema.entries.FLUSH_RESERVE_MS,
});

export type WorkflowSettings = v.InferOutput<typeof workflowSettingsSchema>;

/** The settings of the start and cancel functions: the table, the tenant access policy and the workflow. */
export function parseWorkflowSettings(environment: Record<string, string | undefined>): WorkflowSettings {
  const result = v.safeParse(workflowSettingsSchema, pickDefined(environment, workflowSettingsSchema));
  if (!result.success) throw new SettingsError(badKeys(result.issues));
  return result.output;
}
