/**
 * Settings that cannot be mistyped: a variable of the environment (or of `.env`) whose name is in one of this
 * project's own namespaces but is no setting any of its functions or commands reads (`DIAGNOSIS_MODEL_PROFIL`) is
 * refused, with the setting it was probably meant to be, rather than silently ignored; a near miss of a setting's
 * name outside those namespaces (`LOG_BACKEND`, `MYSQL_URI`) is named in a warning, because the name may belong to
 * another tool. The namespaces come from the settings' own schemas: a name's first word is a namespace when two or
 * more settings share it (cut to their longest common prefix: `SEMANTIC_GUARD_`), except the namespaces other tools
 * read from a shell (MySQL's client: `MYSQL_PWD`, `MYSQL_HOST`, …), which are never refused.
 */
import { serviceSettingNames } from '@diagnosis/core/config';
import { DELIVERY_SETTING_NAMES, SLACK_FUNCTION_SETTING_NAMES } from '@diagnosis/functions/infrastructure';
import { CliError, EXIT, printable } from './command-line.ts';

/** What only the command line reads (no function has them). */
const COMMAND_LINE_SETTING_NAMES = ['DIAGNOSIS_LOCAL_DATA', 'EVAL_PRICE'] as const;

/**
 * Namespaces other programs read from the same shell: near misses there are warned, never refused. MySQL's client
 * reads `MYSQL_PWD`, `MYSQL_HOST`…; Slack's SDKs and CLI `SLACK_BOT_TOKEN`, `SLACK_SIGNING_SECRET`….
 */
const FOREIGN_NAMESPACES = ['MYSQL_', 'SLACK_'] as const;

/** Every setting name of the project: the functions' schemas (delivery and Slack included), the command line's. */
export function knownSettingNames(): readonly string[] {
  return [
    ...new Set([
      ...serviceSettingNames(),
      ...DELIVERY_SETTING_NAMES,
      ...SLACK_FUNCTION_SETTING_NAMES,
      ...COMMAND_LINE_SETTING_NAMES,
    ]),
  ].sort();
}

/** The project's own namespaces, derived from its setting names (see the module's note). */
export function ownNamespaces(names: readonly string[]): string[] {
  const groups = new Map<string, string[]>();
  for (const name of names) {
    const word = name.split('_')[0] ?? name;
    groups.set(word, [...(groups.get(word) ?? []), name]);
  }
  const namespaces: string[] = [];
  for (const members of groups.values()) {
    if (members.length < 2) continue;
    const parts = members.map((member) => member.split('_'));
    const shortest = Math.min(...parts.map((part) => part.length));
    let length = 1;
    while (length < shortest && parts.every((part) => part[length] === parts[0]?.[length])) length += 1;
    // NOTE: SEMANTIC_GUARD and SEMANTIC_GUARD_MODEL_ID give SEMANTIC_GUARD_; MASKING and MASKING_SECRET give MASKING_.
    const prefix = `${parts[0]?.slice(0, length).join('_')}_`;
    if (!FOREIGN_NAMESPACES.some((foreign) => prefix.startsWith(foreign))) namespaces.push(prefix);
  }
  return namespaces.sort();
}

/** Levenshtein distance, stopped early above `limit` (names are at most 128 characters). */
export function editDistance(a: string, b: string, limit = 3): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
      current.push(value);
      best = Math.min(best, value);
    }
    if (best > limit) return limit + 1;
    previous = current;
  }
  return previous[b.length] ?? limit + 1;
}

function nearest(name: string, names: readonly string[], limit: number): string | undefined {
  let found: { name: string; distance: number } | undefined;
  for (const candidate of names) {
    const distance = editDistance(name, candidate, limit);
    if (distance <= limit && (found === undefined || distance < found.distance)) found = { name: candidate, distance };
  }
  return found?.name;
}

export interface SettingNameFindings {
  /** Names in the project's namespaces that no setting has: refused. */
  unknown: { name: string; suggestion?: string }[];
  /** Names outside them within two edits of a setting: warned. */
  nearMisses: { name: string; suggestion: string }[];
}

/** The environment's variable names checked against the project's settings (values are never read). */
export function findSettingNameMistakes(names: Iterable<string>, known = knownSettingNames()): SettingNameFindings {
  const namespaces = ownNamespaces(known);
  const knownSet = new Set(known);
  const findings: SettingNameFindings = { unknown: [], nearMisses: [] };
  for (const name of [...names].sort()) {
    if (knownSet.has(name)) continue;
    if (namespaces.some((namespace) => name.startsWith(namespace))) {
      const suggestion = nearest(name, known, Math.max(3, Math.floor(name.length / 4)));
      findings.unknown.push(suggestion === undefined ? { name } : { name, suggestion });
      continue;
    }
    if (name.length < 6) continue;
    const suggestion = nearest(name, known, 2);
    if (suggestion !== undefined) findings.nearMisses.push({ name, suggestion });
  }
  return findings;
}

/**
 * The variables named like a secret of the stage file (`pattern`: a Slack app's `Slack…` secrets, a webhook mapping's
 * `Webhook…` secret) that name no secret of `known`: locally each secret is read from the variable of its own name,
 * so such a variable is a misspelt one (refused, with the nearest secret's name).
 */
export function findSecretNameMistakes(
  names: Iterable<string>,
  known: readonly string[],
  pattern: RegExp,
): SettingNameFindings['unknown'] {
  const knownSet = new Set(known);
  const unknown: SettingNameFindings['unknown'] = [];
  for (const name of [...names].sort()) {
    if (knownSet.has(name) || !pattern.test(name)) continue;
    const suggestion = nearest(name, known, Math.max(3, Math.floor(name.length / 4)));
    unknown.push(suggestion === undefined ? { name } : { name, suggestion });
  }
  return unknown;
}

/** One kind of stage-file secret: the names the stage files give (`known`) and the form of such a name. */
export interface StageSecretKind {
  known: readonly string[];
  pattern: RegExp;
  /** Where such secrets are described (`docs/chat.md`). */
  doc: string;
}

/**
 * Refuses (exit 78), in one line, every variable of `env` named like a stage file's secret (a Slack app's `Slack…`, a
 * webhook mapping's `Webhook…`) that names none its stage files give: each with the secret probably meant, and the
 * next step — such a secret is read only when `--stage <file>` names the stage file that gives it (the lines of
 * `.env.example` are examples: uncommented as they are, no stage file in deploy/ names them).
 */
export function refuseUnknownStageSecrets(
  env: Readonly<Record<string, string | undefined>>,
  dotEnvKeys: ReadonlySet<string> | undefined,
  kinds: readonly StageSecretKind[],
  served: string,
): void {
  const set = Object.keys(env).filter((name) => env[name] !== undefined);
  const unknown = kinds.flatMap((kind) => findSecretNameMistakes(set, kind.known, kind.pattern));
  if (unknown.length === 0) return;
  const docs = kinds.filter((kind) => unknown.some(({ name }) => kind.pattern.test(name))).map((kind) => kind.doc);
  const one = unknown.length === 1;
  throw unknownSettingsRefusal(
    unknown,
    dotEnvKeys,
    `no stage file names ${one ? 'it' : 'them'}: a stage file's secrets are read from the variables it names (${docs.join(', ')}), so name the stage file that gives ${one ? 'it' : 'them'} with --stage <file> (this one read ${served}), or comment ${one ? 'the line' : 'the lines'} out`,
  );
}

/** Where a variable was set: `in .env` (one of the file's names) or `in the environment`. */
export function settingSource(dotEnvKeys: ReadonlySet<string> | undefined, name: string): string {
  return dotEnvKeys?.has(name) === true ? 'in .env' : 'in the environment';
}

/** The refusal (exit 78) of unknown names: each with where it was set and the name probably meant. */
export function unknownSettingsRefusal(
  unknown: SettingNameFindings['unknown'],
  dotEnvKeys: ReadonlySet<string> | undefined,
  hint = 'every setting is in docs/settings.md',
): CliError {
  const named = unknown.map(
    (entry) =>
      `${printable(entry.name)} ${settingSource(dotEnvKeys, entry.name)}${entry.suggestion === undefined ? '' : ` (did you mean ${entry.suggestion}?)`}`,
  );
  return new CliError(EXIT.CONFIG, `unknown setting${unknown.length === 1 ? '' : 's'}: ${named.join('; ')}; ${hint}`);
}
