import { SettingsError } from '@diagnosis/core';
import { type DiagnosisSettings, parseDiagnosisSettings } from '@diagnosis/core/config';
import { CliError, EXIT } from '../command-line.ts';
import type { LocalRuntime } from './local-runtime.ts';

/**
 * The settings of a local run, as an object for the composition root the Lambda shares: this machine's embedded
 * defaults (the runtime's table and endpoint, the example world), then every non-empty variable of the user's
 * environment, then what the command itself decides (the demo's scripted model, a batch's cap). The environment is
 * read, never written. A bad value is one line naming the keys, never their values (they may be secrets).
 */
export function buildLocalSettings(
  env: Readonly<Record<string, string | undefined>>,
  runtime: Pick<LocalRuntime, 'defaults' | 'tableName' | 'endpoint'>,
  overrides: Record<string, string> = {},
): DiagnosisSettings {
  const environment: Record<string, string | undefined> = { ...runtime.defaults };
  for (const [key, value] of Object.entries(env)) if (value !== undefined && value !== '') environment[key] = value;
  Object.assign(environment, overrides, {
    DIAGNOSIS_TABLE_NAME: runtime.tableName,
    DYNAMODB_ENDPOINT: runtime.endpoint,
  });
  try {
    return parseDiagnosisSettings(environment);
  } catch (error) {
    if (error instanceof SettingsError) {
      throw new CliError(EXIT.CONFIG, `invalid settings: ${[...error.keys].join(', ')} (see the README, "Real use")`);
    }
    throw error;
  }
}
