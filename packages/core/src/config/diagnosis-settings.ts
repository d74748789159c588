/**
 * The settings of the Diagnose function and of the functions that share its fields (trigger, feedback), as one valibot
 * schema with each setting's description, form and default beside it — the schema docs/settings.md is generated from.
 * NOTE: over 300 lines on purpose: it is one list of fields; the store, masking, evidence and model-profile fields
 * that other functions parse alone already live in modules of their own (store-settings.ts, masking-settings.ts,
 * evidence-settings.ts, model-profiles.ts), and splitting the rest would scatter one schema over several files.
 */
import * as v from 'valibot';
import { DEFAULT_AUDIT_WRITES_IN_FLIGHT, MAX_AUDIT_WRITES_IN_FLIGHT } from '../run/audit-write-limits.ts';
import {
  DEFAULT_RUN_LIMITS,
  RUN_LIMIT_SETTINGS,
  type RunLimitSetting,
  type RunLimits,
  runLimitMaximum,
  runLimitMinimum,
  runLimitsFromSettings,
} from '../run/run-limits.ts';
import { DEFAULT_TIME_ZONE, isTimeZone } from '../run/zoned-time.ts';
import { mappingsOverQueryLimit, triggerMappingsSchema } from '../trigger/trigger-mappings.ts';
import { builtOnce } from './built-once.ts';
import { CHANGE_RETENTION_FIELD } from './change-settings.ts';
import {
  badKeys,
  type EvidenceSettings,
  evidenceSettingsSchema,
  parseEvidenceSettings,
  pickDefined,
  SettingsError,
} from './evidence-settings.ts';
import { MASKING_MODES } from './masking-mode.ts';
import { maskingExclusionsSchema, maskingPatternsSchema } from './masking-settings.ts';
import { MODEL_PROFILE_NAMES, modelProfile } from './model-profiles.ts';
import { SEMANTIC_GUARD_MODES } from './semantic-guard-mode.ts';
import { describeSettingForm } from './setting-forms.ts';
import {
  integer,
  PAST_INCIDENT_SETTING_FIELDS,
  STORE_SETTING_FIELDS,
  WORKFLOW_SETTING_FIELDS,
  workflowSettingsSchema,
} from './store-settings.ts';

const integerUpTo = (minimum: number, maximum: number | null) =>
  v.pipe(integer(minimum), v.maxValue(maximum ?? Number.MAX_SAFE_INTEGER));

/** What each run-limit setting bounds, in a few words: the description of its schema (docs/settings.md). */
const RUN_LIMIT_DESCRIPTIONS: Record<RunLimitSetting, string> = {
  DIAGNOSIS_MAX_MODEL_CALLS: 'Model calls (rounds) per run, the final Draft round included',
  DIAGNOSIS_MAX_TOTAL_TOKENS: "Input plus output tokens of the agent's rounds per run",
  DIAGNOSIS_MAX_TOOL_CALLS: 'Tool calls executed per run (refused and stopped calls do not count)',
  DIAGNOSIS_MAX_TOOL_CALLS_PER_ROUND: 'Tool calls one round may ask for: more discards the round and stops the run',
  DIAGNOSIS_MAX_REJECTED_TOOL_CALLS: 'Tool calls the boundary may refuse per run: the last one stops the run',
  DIAGNOSIS_FINAL_ROUND_RESERVE_MS: 'Time kept before the deadline for the final no-tool round that writes the Draft',
  DIAGNOSIS_MODEL_TIMEOUT_MS: 'Time limit of one model request: past it the run fails `MODEL_TIMEOUT`',
  DIAGNOSIS_MAX_QUERY_BYTES: "UTF-8 bytes of the operator's query",
  DIAGNOSIS_MAX_PREVIOUS_TURN_BYTES: "UTF-8 bytes of a follow-up's previous turn (a longer one is cut to fit)",
  DIAGNOSIS_MAX_INPUT_BYTES: 'UTF-8 bytes of the whole user message',
};

type LimitSettingSchema = v.OptionalSchema<
  v.SchemaWithPipe<readonly [ReturnType<typeof integerUpTo>, v.DescriptionAction<number, string>]>,
  undefined
>;

/** The optional integer setting of one run limit, with the limit's own range. */
function limitSettingEntry(setting: RunLimitSetting): LimitSettingSchema {
  const limit: keyof RunLimits = RUN_LIMIT_SETTINGS[setting];
  const range = integerUpTo(runLimitMinimum(limit), runLimitMaximum(limit));
  return v.optional(v.pipe(range, v.description(RUN_LIMIT_DESCRIPTIONS[setting])));
}

/** One optional integer setting per run limit, with the limit's own range. */
function limitSettingEntries() {
  const entries = {} as Record<RunLimitSetting, LimitSettingSchema>;
  for (const setting of Object.keys(RUN_LIMIT_SETTINGS) as RunLimitSetting[]) {
    entries[setting] = limitSettingEntry(setting);
  }
  return entries;
}

/** The model endpoint when DIAGNOSIS_MODEL_BASE_URL is unset: DeepSeek's OpenAI-compatible API. */
export const DEFAULT_MODEL_BASE_URL = modelProfile('deepseek').baseUrl;

/**
 * The settings Diagnose shares with the trigger and feedback functions (retention, masking, the time zone, the trigger
 * timings), built on the first parse that asks for them: a function that parses only those never builds the rest.
 */
const sharedSettingEntries = /* @__PURE__ */ builtOnce(() => ({
  RETENTION_DAYS: v.optional(v.pipe(integer(1), v.description('Days every item of a run is kept (its `ttl`)')), '90'),
  REASONING_RETENTION_DAYS: v.optional(
    v.pipe(integer(1), v.description("Days a run's raw reasoning items are kept (≤ `RETENTION_DAYS`)")),
    '30',
  ),
  PSEUDONYM_RETENTION_DAYS: v.optional(
    v.pipe(
      integer(1),
      v.description("Days a run's pseudonym map is kept (≤ `RETENTION_DAYS`); unset: the reasoning's"),
    ),
  ),
  /**
   * `identifiers` (default): secrets redacted and identifiers pseudonymised before anything sees an observation;
   * `secrets-only`: secrets only (they are never optional). See docs/masking.md.
   */
  MASKING: v.optional(
    v.pipe(
      v.picklist(MASKING_MODES),
      v.description('`identifiers`: secrets and identifiers masked; `secrets-only`: secrets only'),
    ),
    'identifiers',
  ),
  MASKING_PATTERNS: v.optional(
    v.pipe(
      maskingPatternsSchema,
      v.description('The stage\'s own identifiers (JSON `[{ "kind", "pattern" }]`, RE2 syntax), pseudonymised too'),
    ),
    '[]',
  ),
  MASKING_EXCLUSIONS: v.optional(
    v.pipe(
      maskingExclusionsSchema,
      v.description('JSON list of RE2 patterns: an identifier that one of them matches in full stays as it is'),
    ),
    '[]',
  ),
  /** The deployment's IANA time zone: the model reads the run's start time in it ("从 14:05 开始" is today there). */
  DIAGNOSIS_TIMEZONE: v.optional(
    v.pipe(
      v.string(),
      v.check((zone: string) => isTimeZone(zone)),
      v.description('The IANA time zone the model reads times in ("从 14:05 开始" is today there)'),
    ),
    DEFAULT_TIME_ZONE,
  ),
  /** Later events of an incident within this many seconds of its last one attach to its run instead of starting one. */
  TRIGGER_QUIET_PERIOD_SECONDS: v.optional(
    v.pipe(
      integer(0),
      v.maxValue(86_400),
      v.description("An incident's later events within this many seconds attach to its run"),
    ),
    '600',
  ),
  /** How long before an alarm's state change a triggered run's incident window opens (a mapping may say otherwise). */
  TRIGGER_LOOKBACK_MINUTES: v.optional(
    v.pipe(
      integer(1),
      v.maxValue(1_440),
      v.description("How many minutes before an incident's start its window opens"),
    ),
    '30',
  ),
}));

/**
 * Settings of the service besides the evidence backends, by environment variable name. Each one's `description` is
 * the line docs/settings.md shows for it (`npm run docs:settings`): one line of the table, so keep it short. Built on
 * first use, like the trigger and feedback functions' own.
 */
const serviceSettingsSchema = /* @__PURE__ */ builtOnce(() => {
  const shared = sharedSettingEntries();
  const modelBaseUrl = v.pipe(v.string(), v.url(), v.regex(/^https?:\/\//));
  const modelId = v.pipe(v.string(), v.minLength(1), v.maxLength(200));
  // NOTE: a key travels in an HTTP header (`Authorization: Bearer …`), which carries printable ASCII only: a key
  // copied with an ellipsis (`sk-…`) or a line break is refused here, naming the key, rather than failing the run.
  const modelKey = v.pipe(v.string(), v.minLength(1), v.regex(/^[\x21-\x7e]+$/, 'printable ASCII, no spaces'));
  return v.object({
    DIAGNOSIS_TABLE_NAME: STORE_SETTING_FIELDS.DIAGNOSIS_TABLE_NAME,
    DYNAMODB_ENDPOINT: STORE_SETTING_FIELDS.DYNAMODB_ENDPOINT,
    /** The provider profile (see `MODEL_PROFILES`): base URL and model id defaults, JSON mode of the Draft, prices. */
    DIAGNOSIS_MODEL_PROFILE: v.optional(
      v.pipe(
        v.picklist(MODEL_PROFILE_NAMES),
        v.description(
          "The provider profile: base URL and model defaults, the Draft's JSON mode, prices (docs/models.md)",
        ),
      ),
      'deepseek',
    ),
    DIAGNOSIS_MODEL_BASE_URL: v.optional(
      v.pipe(modelBaseUrl, v.description("Any OpenAI-compatible endpoint; unset: the profile's")),
    ),
    /** Unset: the profile's default model (the `openai-compatible` profile has none: then it must be set). */
    DIAGNOSIS_MODEL_ID: v.optional(
      v.pipe(modelId, v.description("The model id; unset: the profile's (`openai-compatible` has none: set it)")),
    ),
    DIAGNOSIS_MODEL_API_KEY: v.pipe(modelKey, v.description('The model API key (deployed: the secret `ModelApiKey`)')),
    /** The SemanticGuard: `enforce` (deployments' default), `shadow` (verdicts recorded, release unchanged) or `off`. */
    SEMANTIC_GUARD: v.optional(
      v.pipe(
        v.picklist(SEMANTIC_GUARD_MODES),
        v.description('The judge: `enforce` publishes only what it supports, `shadow` records only'),
      ),
      'enforce',
    ),
    /** The judge's model id; unset: DIAGNOSIS_MODEL_ID (or the judge profile's default model). A separate call all the same. */
    SEMANTIC_GUARD_MODEL_ID: v.optional(
      v.pipe(
        modelId,
        v.description("The judge's model id; unset: `DIAGNOSIS_MODEL_ID` (or the judge profile's default)"),
      ),
    ),
    SEMANTIC_GUARD_MODEL_PROFILE: v.optional(
      v.pipe(
        v.picklist(MODEL_PROFILE_NAMES),
        v.description("The judge's provider profile; unset: `DIAGNOSIS_MODEL_PROFILE`"),
      ),
    ),
    /** The judge's endpoint; unset: the agent's when the profiles are the same, else the judge profile's base URL. */
    SEMANTIC_GUARD_MODEL_BASE_URL: v.optional(
      v.pipe(
        modelBaseUrl,
        v.description(
          "The judge's endpoint; unset: the agent's if the profiles are the same, else the judge profile's",
        ),
      ),
    ),
    SEMANTIC_GUARD_MODEL_API_KEY: v.optional(
      v.pipe(modelKey, v.description("The judge's key, local runs only; unset: `DIAGNOSIS_MODEL_API_KEY`")),
    ),
    RETENTION_DAYS: shared.RETENTION_DAYS,
    ...PAST_INCIDENT_SETTING_FIELDS,
    ...CHANGE_RETENTION_FIELD,
    REASONING_RETENTION_DAYS: shared.REASONING_RETENTION_DAYS,
    PSEUDONYM_RETENTION_DAYS: shared.PSEUDONYM_RETENTION_DAYS,
    MASKING: shared.MASKING,
    MASKING_PATTERNS: shared.MASKING_PATTERNS,
    MASKING_EXCLUSIONS: shared.MASKING_EXCLUSIONS,
    MASKING_SECRET: STORE_SETTING_FIELDS.MASKING_SECRET,
    DIAGNOSIS_CANCEL_POLL_MS: v.optional(
      v.pipe(
        integer(100),
        v.description('How often a running invocation reads its cancel flag (one small consistent read)'),
      ),
      '2000',
    ),
    TENANT_ACCESS: STORE_SETTING_FIELDS.TENANT_ACCESS,
    FLUSH_RESERVE_MS: WORKFLOW_SETTING_FIELDS.FLUSH_RESERVE_MS,
    /** Audit puts one run has in flight at once (its store's write-behind queue; same-key writes keep their order). */
    AUDIT_MAX_WRITES_IN_FLIGHT: v.optional(
      v.pipe(
        integerUpTo(1, MAX_AUDIT_WRITES_IN_FLIGHT),
        v.description('Audit writes one run has in flight at once; writes to one item keep their order'),
      ),
      String(DEFAULT_AUDIT_WRITES_IN_FLIGHT),
    ),
    /** Runs of one enterprise in progress at once, enforced with lease items in the table (see TenantLeaseStore). */
    TENANT_MAX_CONCURRENT_RUNS: v.optional(
      v.pipe(
        integer(1),
        v.maxValue(256),
        v.description('Runs of one enterprise in progress at once (lease slots in the table)'),
      ),
      '4',
    ),
    TENANT_MAX_OPEN_RUNS: WORKFLOW_SETTING_FIELDS.TENANT_MAX_OPEN_RUNS,
    DIAGNOSIS_TIMEZONE: shared.DIAGNOSIS_TIMEZONE,
    TRIGGER_QUIET_PERIOD_SECONDS: shared.TRIGGER_QUIET_PERIOD_SECONDS,
    TRIGGER_LOOKBACK_MINUTES: shared.TRIGGER_LOOKBACK_MINUTES,
    ...limitSettingEntries(),
  });
});

type ServiceSettings = v.InferOutput<ReturnType<typeof serviceSettingsSchema>>;

/**
 * The parsed settings. The model's endpoint and id are always resolved (from the profile when unset); so are the
 * judge's profile, endpoint, key and model id.
 */
export type DiagnosisSettings = Omit<
  ServiceSettings,
  | 'DIAGNOSIS_MODEL_BASE_URL'
  | 'DIAGNOSIS_MODEL_ID'
  | 'SEMANTIC_GUARD_MODEL_PROFILE'
  | 'SEMANTIC_GUARD_MODEL_BASE_URL'
  | 'SEMANTIC_GUARD_MODEL_API_KEY'
  | 'SEMANTIC_GUARD_MODEL_ID'
> & {
  DIAGNOSIS_MODEL_BASE_URL: string;
  DIAGNOSIS_MODEL_ID: string;
  SEMANTIC_GUARD_MODEL_PROFILE: ServiceSettings['DIAGNOSIS_MODEL_PROFILE'];
  SEMANTIC_GUARD_MODEL_BASE_URL: string;
  SEMANTIC_GUARD_MODEL_API_KEY: string;
  SEMANTIC_GUARD_MODEL_ID: string;
} & EvidenceSettings;

/**
 * The model settings with the profiles' defaults filled in, or the keys that are missing: a profile without a
 * default model (`openai-compatible`) needs DIAGNOSIS_MODEL_ID (and the judge's id when only the judge uses it).
 */
function resolveModels(
  service: ServiceSettings,
): { ok: true; settings: DiagnosisSettingsOfService } | { ok: false; keys: string[] } {
  const agent = modelProfile(service.DIAGNOSIS_MODEL_PROFILE);
  const judgeProfileName = service.SEMANTIC_GUARD_MODEL_PROFILE ?? service.DIAGNOSIS_MODEL_PROFILE;
  const judge = modelProfile(judgeProfileName);
  const sameProfile = judgeProfileName === service.DIAGNOSIS_MODEL_PROFILE;
  const baseUrl = service.DIAGNOSIS_MODEL_BASE_URL ?? agent.baseUrl;
  const id = service.DIAGNOSIS_MODEL_ID ?? agent.defaultModelId;
  const judgeId = service.SEMANTIC_GUARD_MODEL_ID ?? (sameProfile ? id : judge.defaultModelId);
  const keys = [
    ...(id === null ? ['DIAGNOSIS_MODEL_ID'] : []),
    ...(judgeId === null && id !== null ? ['SEMANTIC_GUARD_MODEL_ID'] : []),
  ];
  if (id === null || judgeId === null) return { ok: false, keys };
  return {
    ok: true,
    settings: {
      ...service,
      DIAGNOSIS_MODEL_BASE_URL: baseUrl,
      DIAGNOSIS_MODEL_ID: id,
      SEMANTIC_GUARD_MODEL_PROFILE: judgeProfileName,
      SEMANTIC_GUARD_MODEL_BASE_URL: service.SEMANTIC_GUARD_MODEL_BASE_URL ?? (sameProfile ? baseUrl : judge.baseUrl),
      SEMANTIC_GUARD_MODEL_API_KEY: service.SEMANTIC_GUARD_MODEL_API_KEY ?? service.DIAGNOSIS_MODEL_API_KEY,
      SEMANTIC_GUARD_MODEL_ID: judgeId,
    },
  };
}

type DiagnosisSettingsOfService = Omit<DiagnosisSettings, keyof EvidenceSettings>;

/**
 * The name of every setting `parseDiagnosisSettings` reads, taken from its schemas: the deploy's per-stage file may
 * name exactly these (less what the deploy itself provides), so a typo is refused instead of silently ignored.
 */
export const diagnosisSettingKeys = /* @__PURE__ */ builtOnce((): readonly DiagnosisSettingKey[] =>
  Object.freeze([
    ...Object.keys(serviceSettingsSchema().entries),
    ...Object.keys(evidenceSettingsSchema().entries),
  ] as DiagnosisSettingKey[]),
);

/** The name of one setting of `parseDiagnosisSettings`. */
export type DiagnosisSettingKey =
  | keyof ReturnType<typeof serviceSettingsSchema>['entries']
  | keyof ReturnType<typeof evidenceSettingsSchema>['entries'];

/**
 * All settings of the Lambda, parsed once per cold start from its environment (the handler merges in SST's linked
 * resources first). A bad or missing value fails the cold start with a SettingsError that names the keys and never
 * their values, which may be secrets.
 */
export function parseDiagnosisSettings(environment: Record<string, string | undefined>): DiagnosisSettings {
  const schema = serviceSettingsSchema();
  const service = v.safeParse(schema, pickDefined(environment, schema));
  let evidence: EvidenceSettings | undefined;
  let evidenceKeys: string[] = [];
  try {
    evidence = parseEvidenceSettings(environment);
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
    evidenceKeys = [...error.keys];
  }
  const models = service.success ? resolveModels(service.output) : undefined;
  const keys = [
    ...(service.success ? [] : badKeys(service.issues)),
    ...(service.success ? outlivingRetentions(service.output) : []),
    ...(models?.ok === false ? models.keys : []),
    ...evidenceKeys,
  ];
  if (models?.ok !== true || evidence === undefined || keys.length > 0) throw new SettingsError(keys);
  return { ...models.settings, ...evidence };
}

/**
 * The retentions that would outlive the run's own items. NOTE: a run id is free again once its run item is gone (a
 * caller may choose one), so a reasoning or pseudonym partition kept longer would be there for the next run under the
 * same id — an enterprise's raw reasoning, or the real values behind its pseudonyms (the reveal route derives the map's
 * key from the run id), within another's reach.
 */
function outlivingRetentions(settings: {
  RETENTION_DAYS: number;
  REASONING_RETENTION_DAYS: number;
  PSEUDONYM_RETENTION_DAYS?: number | undefined;
}): string[] {
  return [
    ...(settings.REASONING_RETENTION_DAYS > settings.RETENTION_DAYS ? ['REASONING_RETENTION_DAYS'] : []),
    ...((settings.PSEUDONYM_RETENTION_DAYS ?? settings.REASONING_RETENTION_DAYS) > settings.RETENTION_DAYS
      ? ['PSEUDONYM_RETENTION_DAYS']
      : []),
  ];
}

/** The run limits the settings override. */
export function limitsOf(settings: DiagnosisSettings) {
  return runLimitsFromSettings(settings);
}

// NOTE: the trigger and feedback schemas are built by their own parse, once (`builtOnce`): a module-level schema whose
// entries spread another's is kept by the bundler in every function that imports this module (a spread may run a
// getter), so Diagnose built both, and loaded the trigger mappings' module, at every cold start for nothing.
const triggerSettingsSchema = /* @__PURE__ */ builtOnce(() => {
  const shared = sharedSettingEntries();
  return v.object({
    ...workflowSettingsSchema.entries,
    /** The stage file's `triggers` (JSON), checked at deploy time with the same schema. */
    TRIGGERS: v.optional(v.pipe(v.string(), v.parseJson(), triggerMappingsSchema), '[]'),
    TRIGGER_QUIET_PERIOD_SECONDS: shared.TRIGGER_QUIET_PERIOD_SECONDS,
    TRIGGER_LOOKBACK_MINUTES: shared.TRIGGER_LOOKBACK_MINUTES,
    DIAGNOSIS_TIMEZONE: shared.DIAGNOSIS_TIMEZONE,
    DIAGNOSIS_MAX_QUERY_BYTES: limitSettingEntry('DIAGNOSIS_MAX_QUERY_BYTES'),
    RETENTION_DAYS: shared.RETENTION_DAYS,
    // NOTE: the sender's texts (question, title) are masked here, with the runs' own masking (issue 32, item 10).
    MASKING: shared.MASKING,
    MASKING_PATTERNS: shared.MASKING_PATTERNS,
    MASKING_EXCLUSIONS: shared.MASKING_EXCLUSIONS,
    REASONING_RETENTION_DAYS: shared.REASONING_RETENTION_DAYS,
    PSEUDONYM_RETENTION_DAYS: shared.PSEUDONYM_RETENTION_DAYS,
    /**
     * The bearer token Alertmanager's `http_config` sends (an SST secret); unset: the Alertmanager route refuses all.
     * Printable ASCII without spaces: the route reads `Authorization: Bearer <token>` so, and a token it could never
     * match is refused here rather than refusing every request in silence.
     */
    ALERTMANAGER_WEBHOOK_TOKEN: v.optional(
      v.pipe(v.string(), v.minLength(16), v.maxLength(512), v.regex(/^[\x21-\x7e]+$/, 'printable ASCII, no spaces')),
    ),
    /**
     * The PagerDuty webhook subscription's signing secrets (an SST secret), comma-separated during a rotation; unset:
     * the PagerDuty route refuses all.
     */
    PAGERDUTY_WEBHOOK_SECRETS: v.optional(
      v.pipe(
        v.string(),
        v.transform((text) => text.split(',').map((secret) => secret.trim())),
        v.array(v.pipe(v.string(), v.minLength(16), v.maxLength(512))),
        v.minLength(1),
        v.maxLength(5),
      ),
    ),
  });
});

export type TriggerSettings = v.InferOutput<ReturnType<typeof triggerSettingsSchema>>;

/**
 * The settings of the Trigger functions (the CloudWatch alarm target and the webhook route): the workflow's, the
 * trigger mappings, the quiet period and lookback, the time zone and the webhook secrets. A bad value names its key.
 */
export function parseTriggerSettings(environment: Record<string, string | undefined>): TriggerSettings {
  const schema = triggerSettingsSchema();
  const result = v.safeParse(schema, pickDefined(environment, schema));
  if (!result.success) throw new SettingsError(badKeys(result.issues));
  // NOTE: a mapping's question must fit the query's byte limit whatever the sender's texts (issue 32 item 5); the
  // deploy checks the same, so this fails only a function deployed around the deploy's check.
  const oversized = mappingsOverQueryLimit(result.output.TRIGGERS, {
    timeZone: result.output.DIAGNOSIS_TIMEZONE,
    maxQueryBytes: result.output.DIAGNOSIS_MAX_QUERY_BYTES ?? DEFAULT_RUN_LIMITS.maxQueryBytes,
  });
  if (oversized.length > 0) throw new SettingsError(oversized.map((index) => `TRIGGERS.${index}.query`));
  return result.output;
}

const feedbackSettingsSchema = /* @__PURE__ */ builtOnce(() => {
  const shared = sharedSettingEntries();
  return v.object({
    ...STORE_SETTING_FIELDS,
    MASKING: shared.MASKING,
    MASKING_PATTERNS: shared.MASKING_PATTERNS,
    MASKING_EXCLUSIONS: shared.MASKING_EXCLUSIONS,
    REASONING_RETENTION_DAYS: shared.REASONING_RETENTION_DAYS,
    PSEUDONYM_RETENTION_DAYS: shared.PSEUDONYM_RETENTION_DAYS,
    ...PAST_INCIDENT_SETTING_FIELDS,
  });
});

export type FeedbackSettings = v.InferOutput<ReturnType<typeof feedbackSettingsSchema>>;

/**
 * The settings of the feedback function: the table's, and the masking the runs were masked with (mode, the stage's
 * patterns and exclusions, the pseudonym map's retention), so a rating is masked as its run was. A bad value names
 * its key.
 */
export function parseFeedbackSettings(environment: Record<string, string | undefined>): FeedbackSettings {
  const schema = feedbackSettingsSchema();
  const result = v.safeParse(schema, pickDefined(environment, schema));
  if (!result.success) throw new SettingsError(badKeys(result.issues));
  return result.output;
}

/**
 * The name of every setting any function of the service reads (Diagnose, the read, start and cancel functions, the
 * Trigger functions, the feedback function), taken from their schemas: what a settings check may call a known name.
 */
export function serviceSettingNames(): readonly string[] {
  return [
    ...new Set([
      ...diagnosisSettingKeys(),
      ...Object.keys(workflowSettingsSchema.entries),
      ...Object.keys(triggerSettingsSchema().entries),
      ...Object.keys(feedbackSettingsSchema().entries),
    ]),
  ];
}

/** The schema of a setting of `parseDiagnosisSettings`, or undefined for a key it does not read. */
function settingSchema(key: string): v.GenericSchema | undefined {
  const entries: Record<string, v.GenericSchema> = serviceSettingsSchema().entries;
  const evidenceEntries: Record<string, v.GenericSchema> = evidenceSettingsSchema().entries;
  return entries[key] ?? evidenceEntries[key];
}

/**
 * What a setting of `parseDiagnosisSettings` is for, in a few words: its schema's `description`, the line
 * docs/settings.md shows for it (`npm run docs:settings`). Undefined for a key no schema has.
 */
export function settingDescription(key: string): string | undefined {
  const schema = settingSchema(key);
  if (schema === undefined) return undefined;
  return v.getDescription('wrapped' in schema ? (schema.wrapped as v.GenericSchema) : schema);
}

/**
 * The value a setting of `parseDiagnosisSettings` takes when it is unset, as the text an environment would hold: its
 * schema's default, or the default of the run limit it overrides; null when it has none (it is required, or its code
 * resolves it from another setting: its description says how). Undefined for a key no schema has.
 */
export function settingDefault(key: string): string | null | undefined {
  const schema = settingSchema(key);
  if (schema === undefined) return undefined;
  const limit: keyof RunLimits | undefined = RUN_LIMIT_SETTINGS[key as RunLimitSetting];
  if (limit !== undefined) return String(DEFAULT_RUN_LIMITS[limit]);
  const fallback = 'default' in schema ? schema.default : undefined;
  return typeof fallback === 'string' ? fallback : null;
}

/** The form a setting of `parseDiagnosisSettings` (or the read and workflow functions) accepts, in words. */
export function settingForm(key: string): string | undefined {
  return describeSettingForm(key, [serviceSettingsSchema(), evidenceSettingsSchema(), workflowSettingsSchema]);
}
