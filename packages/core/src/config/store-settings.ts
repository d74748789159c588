import * as v from 'valibot';
import { tenantAccessSchema } from '../access/tenant-access.ts';
import { DEFAULT_TENANT_MAX_OPEN_RUNS, MAX_TENANT_MAX_OPEN_RUNS } from '../access/tenant-admission.ts';
import { badKeys, pickDefined, SettingsError } from './evidence-settings.ts';

/** A whole number of at least `minimum`, from its decimal text. */
export const integer = (minimum: number) =>
  v.pipe(v.string(), v.regex(/^\d+$/), v.transform(Number), v.safeInteger(), v.minValue(minimum));

/**
 * The settings every function shares: the table, the tenant access policy and the masking secret. NOTE: a module of
 * its own, apart from `diagnosis-settings.ts`, so that the functions that only read, start or cancel runs do not load
 * what only Diagnose parses (the deployer's masking patterns, compiled with RE2JS).
 */
export const STORE_SETTING_FIELDS = {
  DIAGNOSIS_TABLE_NAME: v.pipe(
    v.string(),
    v.regex(/^[A-Za-z0-9_.-]{3,255}$/),
    v.description('The single DynamoDB table (deployed: the linked table)'),
  ),
  DYNAMODB_ENDPOINT: v.optional(
    v.pipe(v.string(), v.url(), v.description('A DynamoDB Local endpoint, for local runs and tests')),
  ),
  TENANT_ACCESS: v.optional(
    v.pipe(
      tenantAccessSchema,
      v.description('Who may use which enterprise (docs/security.md); unset: every IAM caller, every enterprise'),
    ),
  ),
  /**
   * The secret each run's masking keys are derived from (the SST secret MaskingKey in AWS; at least 32 characters).
   * Unset: the public development key, for local runs only. Read by Diagnose and by the reveal function.
   */
  MASKING_SECRET: v.optional(
    v.pipe(
      v.string(),
      v.minLength(32),
      v.maxLength(1_024),
      v.description('The secret masking keys derive from (deployed: `MaskingKey`); unset: a public key, local only'),
    ),
  ),
};

/** The past incidents' settings: whether runs meet them, and how long one is kept (docs/memory.md). */
export const PAST_INCIDENT_SETTING_FIELDS = {
  PAST_INCIDENTS: v.optional(
    v.pipe(
      v.picklist(['on', 'off']),
      v.description("`on`: `lookup_knowledge` also returns the enterprise's rated past runs, marked as leads"),
    ),
    'on',
  ),
  PAST_INCIDENT_RETENTION_DAYS: v.optional(
    v.pipe(integer(1), v.maxValue(730), v.description('Days a past incident is kept after the rating that made it')),
    '180',
  ),
};

const storeSettingsSchema = v.object(STORE_SETTING_FIELDS);

export type StoreSettings = v.InferOutput<typeof storeSettingsSchema>;

/** The settings of the read, audit and reasoning functions: the table and the tenant access policy. */
export function parseStoreSettings(environment: Record<string, string | undefined>): StoreSettings {
  const result = v.safeParse(storeSettingsSchema, pickDefined(environment, storeSettingsSchema));
  if (!result.success) throw new SettingsError(badKeys(result.issues));
  return result.output;
}

/** Settings of Diagnose that the start, cancel and workflow-event functions read too. */
export const WORKFLOW_SETTING_FIELDS = {
  FLUSH_RESERVE_MS: v.optional(
    v.pipe(integer(0), v.description("Time kept after the run's deadline to flush the audit and complete the run")),
    '3000',
  ),
  /** Runs of one enterprise QUEUED or RUNNING at once (admission control at start; see docs/operations.md). */
  TENANT_MAX_OPEN_RUNS: v.optional(
    v.pipe(
      integer(1),
      v.maxValue(MAX_TENANT_MAX_OPEN_RUNS),
      v.description('Runs of one enterprise QUEUED or RUNNING at once: admission control (docs/operations.md)'),
    ),
    String(DEFAULT_TENANT_MAX_OPEN_RUNS),
  ),
};

const stateMachineArn = v.pipe(
  v.string(),
  v.regex(/^arn:aws[a-z-]*:states:[a-z0-9-]+:\d{12}:stateMachine:[A-Za-z0-9_-]{1,80}$/),
);

export const workflowSettingsSchema = v.object({
  ...storeSettingsSchema.entries,
  /** The DiagnosisWorkflow state machine; unset (local runs, tests): runs start in this process instead. */
  DIAGNOSIS_WORKFLOW_ARN: v.optional(stateMachineArn),
  /** The DiagnosisBatch state machine: its Distributed Map's child executions' events are handled too. */
  DIAGNOSIS_BATCH_ARN: v.optional(stateMachineArn),
  ...WORKFLOW_SETTING_FIELDS,
});

export type WorkflowSettings = v.InferOutput<typeof workflowSettingsSchema>;

/** The settings of the start and cancel functions: the table, the tenant access policy and the workflow. */
export function parseWorkflowSettings(environment: Record<string, string | undefined>): WorkflowSettings {
  const result = v.safeParse(workflowSettingsSchema, pickDefined(environment, workflowSettingsSchema));
  if (!result.success) throw new SettingsError(badKeys(result.issues));
  return result.output;
}
