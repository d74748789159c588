/**
 * The webhook mappings' own secrets `diagnosis serve` reads (docs/triggers.md, per-mapping credentials): a mapping's
 * `secret` names an SST secret (`WebhookE1001Am`) the deployed TriggerWebhook reads at cold start; here its value is
 * read from the variable of that name in the environment (or .env), the name `npx sst secret set` takes. A variable
 * named like such a secret (`Webhook…`) that no stage file in deploy/ names is refused as a misspelt setting (exit 78),
 * with the secret probably meant, and a malformed value is refused naming the secret, never its value — all before
 * anything slow starts. A mapping whose secret is unset refuses its requests, as deployed.
 */
import { SettingsError, type TriggerMapping, WEBHOOK_SECRET_NAME_PATTERN, webhookSecretNames } from '@diagnosis/core';
import { parseMappingSecrets } from '@diagnosis/functions';
import type { CliIo } from '../command-line.ts';
import { settingsRefusal } from '../local/local-settings.ts';
import { webhookSecretNamesOfStageFiles } from '../local/stage-file.ts';
import { refuseMisspeltSecretNames } from '../setting-names.ts';

export interface ServeMappingSecrets {
  /** The values by secret name, as TriggerWebhook holds them (only the secrets that are set). */
  values: ReadonlyMap<string, readonly string[]>;
  /** Every secret the served stage's mappings name, in order, for the banner. */
  names: readonly string[];
}

/** The served mappings' own secrets, checked (names and values); refuses (exit 78) what cannot be right. */
export function planServeMappingSecrets(
  mappings: readonly TriggerMapping[],
  io: Pick<CliIo, 'env' | 'dotEnvKeys'>,
): ServeMappingSecrets {
  const names = webhookSecretNames(mappings);
  const known = [...new Set([...names, ...webhookSecretNamesOfStageFiles()])];
  refuseMisspeltSecretNames(
    io.env,
    io.dotEnvKeys,
    known,
    WEBHOOK_SECRET_NAME_PATTERN,
    "a webhook mapping's secret",
    'docs/triggers.md',
  );
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
