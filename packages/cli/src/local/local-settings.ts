import type { FeedbackMasking } from '@diagnosis/core';
import {
  type DiagnosisSettings,
  parseDiagnosisSettings,
  parseFeedbackSettings,
  parseStoreSettings,
  SettingsError,
  settingForm,
} from '@diagnosis/core/config';
import { CliError, EXIT } from '../command-line.ts';

type Environment = Readonly<Record<string, string | undefined>>;

/**
 * The refusal of bad settings as one line: each key with the form it accepts, never its value (it may be a secret):
 * `invalid settings: DIAGNOSIS_MODEL_PROFILE (one of deepseek, openai, qwen, openai-compatible)`.
 */
export function settingsRefusal(error: SettingsError): CliError {
  const named = [...error.keys].map((key) => {
    const form = settingForm(key);
    return form === undefined ? key : `${key} (${form})`;
  });
  return new CliError(
    EXIT.CONFIG,
    `invalid settings: ${named.join('; ')} (every setting and its form: docs/settings.md)`,
  );
}

function parseOrRefuse<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof SettingsError) throw settingsRefusal(error);
    throw error;
  }
}

/** The non-empty values of the user's environment (an empty variable means "use the default"). */
function nonEmpty(env: Environment): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined && value !== '') values[key] = value;
  return values;
}

/** The table and endpoint settings every local command reads, checked before anything starts. */
export function checkStoreSettings(env: Environment): void {
  parseOrRefuse(() => parseStoreSettings({ DIAGNOSIS_TABLE_NAME: 'diagnosis-local', ...nonEmpty(env) }));
}

/** What a local rating is recorded with, as the deployed rating's `loadRating` reads it from its settings. */
export interface LocalRatingSettings {
  masking: Omit<FeedbackMasking, 'pseudonyms'>;
  /** PAST_INCIDENT_RETENTION_DAYS: how long a rating's past incident is kept. */
  pastIncidentRetentionDays: number;
  /** PSEUDONYM_RETENTION_DAYS, else REASONING_RETENTION_DAYS: how long a rating's new pseudonyms are kept. */
  pseudonymRetentionDays: number;
}

/**
 * The settings a local rating gets, as a deployed rating reads them: the local runs' own masking (MASKING,
 * MASKING_PATTERNS, MASKING_EXCLUSIONS and MASKING_SECRET; unset: the development key of local runs) and the
 * retention of what a rating keeps (PAST_INCIDENT_RETENTION_DAYS, PSEUDONYM_RETENTION_DAYS), checked, and the stage's
 * patterns compiled, before anything slow starts.
 */
export async function localRatingSettings(env: Environment): Promise<LocalRatingSettings> {
  const settings = parseOrRefuse(() =>
    parseFeedbackSettings({
      DIAGNOSIS_TABLE_NAME: 'diagnosis-local',
      DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000',
      ...nonEmpty(env),
    }),
  );
  // NOTE: the core's index (the model stack) only here: the store settings' check above needs none of it.
  const { DEVELOPMENT_MASKING_SECRET, loadCustomRules } = await import('@diagnosis/core');
  try {
    return {
      masking: {
        secret: settings.MASKING_SECRET ?? DEVELOPMENT_MASKING_SECRET,
        mode: settings.MASKING,
        rules: await loadCustomRules(settings.MASKING_PATTERNS, settings.MASKING_EXCLUSIONS),
      },
      pastIncidentRetentionDays: settings.PAST_INCIDENT_RETENTION_DAYS,
      pseudonymRetentionDays: settings.PSEUDONYM_RETENTION_DAYS ?? settings.REASONING_RETENTION_DAYS,
    };
  } catch (error) {
    if (error instanceof SettingsError) throw settingsRefusal(error);
    throw error;
  }
}

/**
 * Every setting of a local run checked before anything slow starts (DynamoDB Local, the model): the environment as
 * `buildLocalSettings` will see it, with the runtime's defaults stood in by placeholders of the same form.
 */
export function checkLocalSettings(env: Environment, overrides: Record<string, string> = {}): DiagnosisSettings {
  return parseOrRefuse(() =>
    parseDiagnosisSettings({
      DIAGNOSIS_TABLE_NAME: 'diagnosis-local',
      DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000',
      ...nonEmpty(env),
      ...overrides,
    }),
  );
}

/**
 * The settings of a local run, as an object for the composition root the Lambda shares: this machine's embedded
 * defaults (the runtime's table and endpoint, the example world), then every non-empty variable of the user's
 * environment, then what the command itself decides (the demo's scripted model, a batch's cap). The environment is
 * read, never written. A bad value is one line naming the keys and their forms, never their values.
 */
export function buildLocalSettings(
  env: Environment,
  // NOTE: the runtime's shape, not its type: local-runtime.ts imports this module (no import circle).
  runtime: { defaults: Record<string, string>; tableName: string; endpoint: string },
  overrides: Record<string, string> = {},
): DiagnosisSettings {
  return parseOrRefuse(() =>
    parseDiagnosisSettings({
      ...runtime.defaults,
      ...nonEmpty(env),
      ...overrides,
      DIAGNOSIS_TABLE_NAME: runtime.tableName,
      DYNAMODB_ENDPOINT: runtime.endpoint,
    }),
  );
}
