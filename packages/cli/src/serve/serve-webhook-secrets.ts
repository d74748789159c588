/**
 * The webhook mappings' own secrets `diagnosis serve` reads (docs/triggers.md, per-mapping credentials): a mapping's
 * `secret` names an SST secret (`WebhookE1001Am`) the deployed TriggerWebhook reads at cold start; here its value is
 * read from the variable of that name in the environment (or .env), the name `npx sst secret set` takes. A variable
 * named like such a secret (`Webhook…`) that no stage file names is refused (exit 78, `webhookSecretKind` with
 * refuseUnknownStageSecrets), and a malformed value is refused naming the secret, never its value — all before
 * anything slow starts. A mapping whose secret is unset refuses its requests, as deployed.
 */
import { SettingsError, type TriggerMapping, WEBHOOK_SECRET_NAME_PATTERN, webhookSecretNames } from '@diagnosis/core';
import { parseMappingSecrets } from '@diagnosis/functions';
import type { CliIo } from '../command-line.ts';
import { settingsRefusal } from '../local/local-settings.ts';
import { webhookSecretNamesOfStageFiles } from '../local/stage-file.ts';
import type { StageSecretKind } from '../setting-names.ts';

export interface ServeMappingSecrets {
  /** The values by secret name, as TriggerWebhook holds them (only the secrets that are set). */
  values: ReadonlyMap<string, readonly string[]>;
  /** Every secret the served stage's mappings name, in order, for the banner. */
  names: readonly string[];
}

/** The webhook mapping secrets a variable may name: the served mappings' and every stage file's in deploy/. */
export function webhookSecretKind(mappings: readonly TriggerMapping[]): StageSecretKind {
  const known = [...new Set([...webhookSecretNames(mappings), ...webhookSecretNamesOfStageFiles()])];
  return { known, pattern: WEBHOOK_SECRET_NAME_PATTERN, doc: 'docs/triggers.md' };
}

/**
 * The served mappings' own secrets, their values checked (their names are checked first, refuseUnknownStageSecrets);
 * refuses (exit 78) a malformed value, naming the secret only.
 */
export function planServeMappingSecrets(
  mappings: readonly TriggerMapping[],
  io: Pick<CliIo, 'env' | 'dotEnvKeys'>,
): ServeMappingSecrets {
  const names = webhookSecretNames(mappings);
  try {
    return { values: parseMappingSecrets(mappings, (name) => io.env[name]), names };
  } catch (error) {
    if (error instanceof SettingsError) throw settingsRefusal(error);
    throw error;
  }
}

/** The banner's line: each mapping secret set, or unset and refusing its mapping (names only, never a value). */
export function describeMappingSecrets(secrets: ServeMappingSecrets): string | null {
  if (secrets.names.length === 0) return null;
  const each = secrets.names.map((name) => `${name} ${secrets.values.has(name) ? 'set' : 'unset'}`);
  const unset = secrets.names.some((name) => !secrets.values.has(name));
  return `  mapping secrets: ${each.join('; ')}${unset ? ' (an unset one refuses its mapping: set it in the environment or .env)' : ''}`;
}
