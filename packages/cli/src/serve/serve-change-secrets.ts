/**
 * The change sources' secrets `diagnosis serve` reads (docs/changes.md): a source's `secret` names an SST secret
 * (`ChangeArgoE1001`) the deployed ChangeWebhook reads at cold start; here its value is read from the variable of that
 * name in the environment (or .env). A variable named like such a secret (`Change…`) that no stage file names is
 * refused (exit 78), and a malformed value is refused naming the secret, never its value — all before anything slow
 * starts. A source whose secret is unset refuses its requests, as deployed.
 */
import {
  CHANGE_SECRET_NAME_PATTERN,
  type ChangeSourceMapping,
  changeSecretNames,
  SettingsError,
} from '@diagnosis/core';
import { parseChangeSecrets } from '@diagnosis/functions';
import type { CliIo } from '../command-line.ts';
import { settingsRefusal } from '../local/local-settings.ts';
import { changeSecretNamesOfStageFiles } from '../local/stage-file.ts';
import type { StageSecretKind } from '../setting-names.ts';

/** The change secrets a variable may name: the served sources' and every stage file's in deploy/. */
export function changeSecretKind(sources: readonly ChangeSourceMapping[]): StageSecretKind {
  const known = [...new Set([...changeSecretNames(sources), ...changeSecretNamesOfStageFiles()])];
  return { known, pattern: CHANGE_SECRET_NAME_PATTERN, doc: 'docs/changes.md' };
}

/** The served sources' secrets, their values checked; refuses (exit 78) a malformed value, naming the secret only. */
export function planServeChangeSecrets(
  sources: readonly ChangeSourceMapping[],
  io: Pick<CliIo, 'env'>,
): ReadonlyMap<string, readonly string[]> {
  try {
    return parseChangeSecrets(sources, (name) => io.env[name]);
  } catch (error) {
    if (error instanceof SettingsError) throw settingsRefusal(error);
    throw error;
  }
}

/** The banner's line: each change source, and whether its secret is set (names only, never a value). */
export function describeChangeSources(
  sources: readonly ChangeSourceMapping[],
  secrets: ReadonlyMap<string, readonly string[]>,
): string | null {
  const each = sources.flatMap((source) =>
    source.source === 'cloudtrail'
      ? []
      : [
          `${source.source === 'github' ? `github ${source.repository}` : source.id} (${source.secret} ${secrets.has(source.secret) ? 'set' : 'unset'})`,
        ],
  );
  if (each.length === 0) return null;
  return `changes (POST /changes/{source}): ${each.join('; ')}`;
}
