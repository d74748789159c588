/**
 * A stage's settings come from a committed file, `deploy/<stage>.json`, never from the deploying shell: what a stage
 * runs with is reviewed like code. The file's `settings` are the Lambda settings (names as in the README), checked at
 * deploy time by the very parse the functions run at cold start (`parseDiagnosisSettings`), so a value the functions
 * would refuse fails the deploy instead, naming the key. A production stage refuses the example world (the sample
 * runbooks, logs and MySQL catalog under `examples/`) unless its file says `"allowExampleEvidence": true`, and
 * refuses to deploy without a TENANT_ACCESS policy.
 * NOTE: over 300 lines on purpose: one parse of a stage file, the functions' settings parse included, and what the
 * deploy derives from it; every module of deploy/ reads it.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import {
  type DeliverySettings,
  deliverySettingsSchema,
  type SlackSettings,
  slackSettingsSchema,
} from '@diagnosis/functions/infrastructure';
import * as v from 'valibot';
// NOTE: by relative path, like sst.config.ts's other imports of our code: SST bundles the config and what it imports,
// and a workspace package's TypeScript sources are not something Node loads by itself.
import {
  type DiagnosisSettingKey,
  type DiagnosisSettings,
  diagnosisSettingKeys,
  mappingsOverQueryLimit,
  parseDiagnosisSettings,
  SettingsError,
  type TriggerMapping,
  triggerMappingsSchema,
  webhookSecretNames,
} from '../packages/core/src/config/index.ts';
import { unusableMaskingKeys } from '../packages/core/src/config/linear-pattern.ts';
import { DEFAULT_RUN_LIMITS } from '../packages/core/src/run/run-limits.ts';
import { type AlarmSettings, alarmSettingsSchema } from './alarms.ts';
import { type ChangesSettings, changesSettingsSchema } from './changes.ts';
import { type IngressSettings, ingressSettingsSchema } from './ingress.ts';

/** The stage that holds real tenants' data (its table is retained and protected, see `sst.config.ts`). */
export const PRODUCTION_STAGE = 'prod';
/** The file a non-production stage without a file of its own deploys with: the example world. */
export const DEFAULT_STAGE_FILE = 'default';
/** The setting that lets a production stage deploy the example world on purpose. */
export const ALLOW_EXAMPLE_EVIDENCE = 'allowExampleEvidence';

/**
 * NOTE: what the deploy itself provides, so a stage file may not set it: the table (linked), the model key and the
 * judge's own key, the MySQL URL (secrets: never in a committed file; a deployment's judge uses the model key), the knowledge index (built at deploy time) and DynamoDB Local.
 */
export const DEPLOY_PROVIDED_SETTINGS = Object.freeze([
  'DIAGNOSIS_TABLE_NAME',
  'DIAGNOSIS_MODEL_API_KEY',
  'MASKING_SECRET',
  'SEMANTIC_GUARD_MODEL_API_KEY',
  'MYSQL_URL',
  'KNOWLEDGE_INDEX_PATH',
  'DYNAMODB_ENDPOINT',
] as const);

export type StageSettingKey = Exclude<DiagnosisSettingKey, (typeof DEPLOY_PROVIDED_SETTINGS)[number]>;

/** The settings a stage file may name: every setting of the functions' schema but those the deploy provides. */
export const STAGE_SETTING_KEYS = Object.freeze(
  diagnosisSettingKeys().filter(
    (key): key is StageSettingKey => !(DEPLOY_PROVIDED_SETTINGS as readonly string[]).includes(key),
  ),
);

/**
 * A value as the file writes it: a string, as in the environment; a number (`"MYSQL_POOL_SIZE": 4`); or, for the
 * JSON settings (`LOGS_GROUPS`, `TENANT_ACCESS`), the JSON itself. The functions get the string or its JSON text.
 */
const settingValue = v.union([v.string(), v.number(), v.array(v.unknown()), v.record(v.string(), v.unknown())]);

/**
 * Reserved concurrency of a function: at least 1 (0 would throttle every call, a kill switch and not a setting) and at
 * most 1,000, AWS's default account quota; AWS itself refuses a reservation that leaves the account under 100
 * unreserved, which the deploy then reports.
 */
const reservedConcurrencyValue = v.pipe(v.number(), v.safeInteger(), v.minValue(1), v.maxValue(1_000));

/**
 * Lambda reserved concurrency, per stage: `Diagnose` for the function that runs diagnoses, `api` for each function
 * behind an API (the InternalApi's and the IngressApi's). A reservation is also
 * a ceiling, so a flood on one cannot take the account's concurrency from the others, nor from other apps. The
 * default (also deploy/default.json's) is small, so several development stages fit in one account.
 */
export interface ReservedConcurrency {
  Diagnose: number;
  api: number;
}

export const DEFAULT_RESERVED_CONCURRENCY: Readonly<ReservedConcurrency> = Object.freeze({ Diagnose: 10, api: 2 });

const stageFileSchema = v.strictObject({
  /** The editor's hint, ignored. */
  $comment: v.optional(v.string()),
  settings: v.strictObject(
    Object.fromEntries(STAGE_SETTING_KEYS.map((key) => [key, v.optional(settingValue)])) as {
      [Key in StageSettingKey]: v.OptionalSchema<typeof settingValue, undefined>;
    },
  ),
  [ALLOW_EXAMPLE_EVIDENCE]: v.optional(v.boolean(), false),
  /** `MaxConcurrency` of the DiagnosisBatch Distributed Map. */
  batchMaxConcurrency: v.optional(v.pipe(v.number(), v.safeInteger(), v.minValue(1), v.maxValue(10_000)), 16),
  alarms: v.optional(alarmSettingsSchema, {}),
  /**
   * Which CloudWatch alarms and webhooks start runs, for which enterprise, service and question (docs/triggers.md);
   * none: the deploy creates no Trigger function and no webhook route.
   */
  // NOTE: written as objects with a `source` first (a JSON import widens `"cloudwatch"` to string, and the committed
  // files type-check against this input type), then checked by the Trigger functions' own schema.
  triggers: v.optional(v.pipe(v.array(v.looseObject({ source: v.string() })), triggerMappingsSchema), []),
  /** Where changes (deploys, configuration, flags, infrastructure) come from, for which enterprise (docs/changes.md). */
  changes: v.optional(changesSettingsSchema, {}),
  /** Where each enterprise's results are delivered (docs/delivery.md); secrets by SST secret name only. */
  delivery: v.optional(deliverySettingsSchema, {}),
  /** The Slack apps, one per enterprise that has one: workspace, channels, secrets by name (docs/chat.md). */
  slack: v.optional(slackSettingsSchema, {}),
  /** The IngressApi's throttle per route (docs/deploy.md, "The ingress edge"); absent: the defaults. */
  ingress: v.optional(ingressSettingsSchema, {}),
  reservedConcurrency: v.optional(
    v.strictObject({ Diagnose: reservedConcurrencyValue, api: reservedConcurrencyValue }),
    DEFAULT_RESERVED_CONCURRENCY,
  ),
});

/** A stage file as written (what `deploy/<stage>.json` may hold): the tests type-check the committed files with it. */
export type StageFile = v.InferInput<typeof stageFileSchema>;

/** A stage's configuration, checked. */
export interface StageConfig {
  stage: string;
  /** The file read, relative to the app's root. */
  file: string;
  production: boolean;
  /** The functions' environment from the file: only the keys it names, each as a string. */
  environment: Record<string, string>;
  /** The settings as the functions will parse them (defaults filled in), for deploy decisions. */
  settings: DiagnosisSettings;
  /** The settings that point at the example world (`KEY=value`), empty when none does. */
  exampleEvidence: string[];
  batchMaxConcurrency: number;
  alarms: AlarmSettings;
  /** The trigger mappings, checked; the Trigger functions get them as `TRIGGERS`. */
  triggers: TriggerMapping[];
  /** The SST secrets the webhook mappings name (`secret`), each linked to TriggerWebhook. */
  webhookSecrets: string[];
  /** The change sources, checked; the change functions get them as `CHANGE_SOURCES`. */
  changes: ChangesSettings;
  delivery: DeliverySettings;
  slack: SlackSettings;
  ingress: IngressSettings;
  reservedConcurrency: ReservedConcurrency;
}

/** A stage file that is missing, unreadable or invalid: the message names the file and the keys, never values. */
export class StageConfigError extends Error {
  override name = 'StageConfigError';
}

/** The file a stage deploys with: its own, or (for any stage but production) the default one. */
export function stageFilePath(root: string, stage: string, exists: (path: string) => boolean): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9-]{0,62}$/.test(stage))
    throw new StageConfigError(`invalid stage name ${JSON.stringify(stage)}`);
  const own = join('deploy', `${stage}.json`);
  if (exists(join(root, own))) return own;
  if (stage === PRODUCTION_STAGE) {
    throw new StageConfigError(
      `stage ${stage} has no ${own}: a production stage deploys only with settings of its own (see README, "Deploy")`,
    );
  }
  return join('deploy', `${DEFAULT_STAGE_FILE}.json`);
}

/** Reads and checks a stage's file (see `parseStageConfig`). */
export function loadStageConfig(
  root: string,
  stage: string,
  exists: (path: string) => boolean = existsSync,
): StageConfig {
  const file = stageFilePath(root, stage, exists);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(join(root, file), 'utf8'));
  } catch (error) {
    throw new StageConfigError(`${file} is not readable JSON (${(error as Error).name})`);
  }
  return parseStageConfig(root, stage, file, json);
}

/**
 * Checks a stage file's content: unknown keys (typos included) are refused by name; the settings must pass the
 * functions' own parse; a production stage may not deploy the example world unless `allowExampleEvidence` is true.
 */
export function parseStageConfig(root: string, stage: string, file: string, json: unknown): StageConfig {
  const parsed = v.safeParse(stageFileSchema, json);
  if (!parsed.success) {
    const keys = [
      ...new Set(parsed.issues.map((issue) => issue.path?.map((item) => String(item.key)).join('.') || '(root)')),
    ];
    throw new StageConfigError(`${file}: invalid or unknown keys: ${keys.join(', ')}`);
  }
  const environment: Record<string, string> = {};
  for (const [key, value] of Object.entries(parsed.output.settings)) {
    // An empty string means "unset" to the functions' parse; the functions are not given it at all.
    if (value === undefined || value === '') continue;
    environment[key] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  let settings: DiagnosisSettings;
  try {
    // NOTE: the two required settings the deploy provides get stand-ins here; everything else is the file's.
    settings = parseDiagnosisSettings({
      ...environment,
      DIAGNOSIS_TABLE_NAME: 'deploy-check',
      DIAGNOSIS_MODEL_API_KEY: 'deploy-check',
    });
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
    throw new StageConfigError(`${file}: settings the functions would refuse: ${error.keys.join(', ')}`);
  }
  // NOTE: RE2's verdict on the masking patterns, which the parse leaves to where they are compiled (a cold start
  // compiles them and fails on the same verdict): the deploy refuses them first.
  const unusable = unusableMaskingKeys(settings);
  if (unusable.length > 0) {
    throw new StageConfigError(`${file}: settings the functions would refuse: ${unusable.join(', ')}`);
  }
  // NOTE: every mapping's question must fit the query's byte limit with the alarm's name at its cap and some of its
  // reason (docs/triggers.md, "The question"); the Trigger functions' cold start checks the same.
  const oversized = mappingsOverQueryLimit(parsed.output.triggers, {
    timeZone: settings.DIAGNOSIS_TIMEZONE,
    maxQueryBytes: settings.DIAGNOSIS_MAX_QUERY_BYTES ?? DEFAULT_RUN_LIMITS.maxQueryBytes,
  });
  if (oversized.length > 0) {
    throw new StageConfigError(
      `${file}: question templates that cannot fit DIAGNOSIS_MAX_QUERY_BYTES: ${oversized.map((index) => `triggers.${index}.query`).join(', ')}`,
    );
  }
  const production = stage === PRODUCTION_STAGE;
  const exampleEvidence = findExampleEvidence(root, settings);
  if (production && exampleEvidence.length > 0 && !parsed.output[ALLOW_EXAMPLE_EVIDENCE]) {
    throw new StageConfigError(
      [
        `stage ${stage} would deploy the example world as production evidence: ${exampleEvidence.join(', ')}.`,
        `Point these settings at your own evidence in ${file}, or set "${ALLOW_EXAMPLE_EVIDENCE}": true there to deploy the examples on purpose.`,
      ].join(' '),
    );
  }
  // NOTE: without a policy every IAM caller allowed on the API may use every enterprise: a warning elsewhere, a
  // refusal for the stage that holds real tenants. `[]` (no caller may use any enterprise) is a policy.
  if (production && settings.TENANT_ACCESS === undefined) {
    throw new StageConfigError(
      `${file}: TENANT_ACCESS is not set: stage ${stage} deploys only with a tenant access policy (README, "Security model")`,
    );
  }
  const missing = shippedPaths(settings).filter(([, path]) => !existsSync(resolve(root, path)));
  if (missing.length > 0) {
    throw new StageConfigError(
      `${file}: no such file or folder: ${missing.map(([key, path]) => `${key}=${path}`).join(', ')}`,
    );
  }
  return {
    stage,
    file,
    production,
    environment,
    settings,
    exampleEvidence,
    batchMaxConcurrency: parsed.output.batchMaxConcurrency,
    alarms: parsed.output.alarms,
    triggers: parsed.output.triggers,
    webhookSecrets: webhookSecretNames(parsed.output.triggers),
    changes: { sources: parsed.output.changes.sources ?? [] },
    delivery: parsed.output.delivery,
    slack: parsed.output.slack,
    ingress: parsed.output.ingress,
    reservedConcurrency: { ...parsed.output.reservedConcurrency },
  };
}

/**
 * The settings whose path lies inside `examples/` (the local runner's sample world): the knowledge folder and the
 * logs folder when their backend is local, and the MySQL catalog (always shipped). Paths are resolved, symlinks
 * followed, so `./examples/../examples/logs` or a link to it is caught too.
 */
export function findExampleEvidence(root: string, settings: DiagnosisSettings): string[] {
  const examples = canonical(resolve(root, 'examples'));
  const inExamples = (path: string) => {
    const from = relative(examples, canonical(resolve(root, path)));
    return from === '' || (!from.startsWith('..') && !isAbsolute(from));
  };
  return shippedPaths(settings)
    .filter(([, path]) => inExamples(path))
    .map(([key, path]) => `${key}=${path}`);
}

/** The files and folders the deploy copies into the Diagnose function, by the setting that names each. */
function shippedPaths(settings: DiagnosisSettings): [string, string][] {
  return [
    ...(settings.KNOWLEDGE_BACKEND === 'local' ? [['KNOWLEDGE_DIR', settings.KNOWLEDGE_DIR] as [string, string]] : []),
    ...(settings.LOGS_BACKEND === 'local' ? [['LOGS_DIR', settings.LOGS_DIR] as [string, string]] : []),
    ['MYSQL_CATALOG_PATH', settings.MYSQL_CATALOG_PATH],
  ];
}

function canonical(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * The IAM statements of `query_logs` on CloudWatch Logs Insights. `logs:StartQuery` names the log groups it reads,
 * so it is granted on exactly the configured groups (`log-group:<name>` and `log-group:<name>:*`, the forms IAM
 * matches for a group). `logs:GetQueryResults` and `logs:StopQuery` name only a query id and have no resource type
 * of their own in the Service Authorization Reference, so they take `*`; they reach only queries whose id the
 * function got from its own StartQuery.
 */
export function buildLogsQueryPermissions<V>(
  settings: Pick<DiagnosisSettings, 'LOGS_BACKEND' | 'LOGS_GROUPS'>,
  logGroupArn: (name: string) => V,
): { actions: string[]; resources: (V | string)[] }[] {
  if (settings.LOGS_BACKEND !== 'cloudwatch') return [];
  const names = [...new Set(Object.values(settings.LOGS_GROUPS).flat())].sort();
  if (names.length === 0) throw new StageConfigError('LOGS_BACKEND is cloudwatch but LOGS_GROUPS names no log group');
  return [
    { actions: ['logs:StartQuery'], resources: names.flatMap((name) => [logGroupArn(name), logGroupArn(`${name}:*`)]) },
    { actions: ['logs:GetQueryResults', 'logs:StopQuery'], resources: ['*'] },
  ];
}

/** Settings set in the deploying shell that the deploy ignores now (it says so, so nobody relies on them). */
export function ignoredShellSettings(environment: Record<string, string | undefined>): string[] {
  return [...STAGE_SETTING_KEYS, 'BATCH_MAX_CONCURRENCY'].filter(
    (key) => environment[key] !== undefined && environment[key] !== '',
  );
}
