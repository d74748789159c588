import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  CHANGE_SECRET_NAME_PATTERN,
  type ChangeSourceMapping,
  SettingsError,
  type TriggerMapping,
  WEBHOOK_SECRET_NAME_PATTERN,
} from '@diagnosis/core';
import { findTriggerMappingFaults, parseChangeSettings, parseTriggerSettings } from '@diagnosis/core/config';
import { type DestinationConfig, parseStageDelivery } from '@diagnosis/functions';
import {
  parseStageSlack,
  SLACK_APP_ID_PATTERN,
  SLACK_CHANNEL_ID_PATTERN,
  type SlackAppConfig,
  slackSecretNames,
} from '@diagnosis/functions/infrastructure';
import { CliError, EXIT, printable } from '../command-line.ts';
import { REPO_ROOT } from './local-data.ts';

/** A `--stage` that ends in `.json` is a stage file's path (one kept outside deploy/); anything else a stage name. */
const isStagePath = (stage: string) => stage.endsWith('.json');

/** How messages name the stage file: `deploy/<stage>.json`, or the path given. */
export function stageFileName(stage: string): string {
  return isStagePath(stage) ? printable(stage) : `deploy/${stage}.json`;
}

/**
 * The stage file (deploy/<stage>.json, or a path ending in `.json`) as the local commands read it: its triggers, its
 * delivery and its Slack sections. A file that is not JSON is refused as such, with the line and column of the fault
 * (never the file's text: Node's own message quotes it).
 */
export function readStageFile(
  stage: string,
  root: string = REPO_ROOT,
): { triggers?: unknown; delivery?: unknown; slack?: unknown; changes?: unknown } {
  if (!isStagePath(stage) && !/^[A-Za-z0-9][A-Za-z0-9-]{0,62}$/.test(stage)) {
    throw new CliError(EXIT.USAGE, 'bad stage name');
  }
  const file = isStagePath(stage) ? resolve(stage) : resolve(root, 'deploy', `${stage}.json`);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new CliError(EXIT.USAGE, `no readable ${stageFileName(stage)}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new CliError(EXIT.CONFIG, `${stageFileName(stage)} is not valid JSON: ${jsonFaultAt(text, error)}`);
  }
}

/** Where JSON.parse stopped, as `line L, column C` (from the position V8 names), or `at the end`. */
function jsonFaultAt(text: string, error: unknown): string {
  const position = /at position (\d+)/.exec(String((error as { message?: unknown }).message ?? ''))?.[1];
  if (position === undefined) return 'it ends before its value does';
  const before = text.slice(0, Number(position));
  const line = before.split('\n').length;
  const column = Number(position) - before.lastIndexOf('\n');
  return `a syntax error at line ${line}, column ${column}`;
}

/** The destinations the stage file's `delivery` section gives an enterprise, checked with the deploy's own schema. */
export function loadStageDestinations(stage: string, enterpriseId: string): DestinationConfig[] {
  return loadStageDelivery(stage, enterpriseId).destinations;
}

/** An enterprise's destinations and whether they receive the real values (`delivery.reveal`), as the deploy reads them. */
export function loadStageDelivery(
  stage: string,
  enterpriseId: string,
): { destinations: DestinationConfig[]; reveal: boolean } {
  const delivery = parseStageDelivery(readStageFile(stage).delivery);
  if (delivery === null) throw new CliError(EXIT.CONFIG, `${stageFileName(stage)}: its delivery section is invalid`);
  const destinations = delivery.destinations[enterpriseId] ?? [];
  return { destinations, reveal: destinations.length > 0 && delivery.reveal[enterpriseId] === true };
}

/** The stage file's trigger mappings, checked with the deploy's own schema. */
export function loadStageTriggers(stage: string, root: string = REPO_ROOT): TriggerMapping[] {
  const json = readStageFile(stage, root);
  // NOTE: the field at fault by its path only (`triggers[2].labels`), never the value or valibot's message.
  const faults = findTriggerMappingFaults(json.triggers ?? []);
  if (faults.length > 0) {
    const fields = faults.map((path) => printable(`triggers${path}`));
    throw new CliError(EXIT.CONFIG, `${stageFileName(stage)}: invalid trigger mapping: ${fields.join(', ')}`);
  }
  try {
    // NOTE: the Trigger functions' own parse of TRIGGERS, which the deploy's check of the stage file shares.
    return parseTriggerSettings({ DIAGNOSIS_TABLE_NAME: 'stage-check', TRIGGERS: JSON.stringify(json.triggers ?? []) })
      .TRIGGERS;
  } catch (error) {
    if (error instanceof SettingsError)
      throw new CliError(EXIT.CONFIG, `${stageFileName(stage)}: its triggers are invalid`);
    throw error;
  }
}

/** The stage file's change sources (`changes.sources`), checked with the change functions' own parse (docs/changes.md). */
export function loadStageChangeSources(stage: string, root: string = REPO_ROOT): ChangeSourceMapping[] {
  const { changes } = readStageFile(stage, root);
  const sources = (changes as { sources?: unknown } | undefined)?.sources ?? [];
  try {
    return parseChangeSettings({ DIAGNOSIS_TABLE_NAME: 'stage-check', CHANGE_SOURCES: JSON.stringify(sources) })
      .CHANGE_SOURCES;
  } catch (error) {
    if (error instanceof SettingsError)
      throw new CliError(EXIT.CONFIG, `${stageFileName(stage)}: its change sources are invalid`);
    throw error;
  }
}

/** The stage file's Slack apps (`slack.apps`), checked with the deploy's own schema (secrets by name; docs/chat.md). */
export function loadStageSlackApps(stage: string, root: string = REPO_ROOT): SlackAppConfig[] {
  const { slack } = readStageFile(stage, root);
  const parsed = parseStageSlack(slack);
  if ('apps' in parsed) return parsed.apps;
  // NOTE: the field at fault by its path only (`slack.apps[0].teamId`), never the value; an alertChannel outside its
  // channels is the one fault whose values are checked ids (the schema's patterns), named so it can be fixed.
  const reason = alertChannelFault(slack, parsed.fault) ?? (parsed.reason === undefined ? '' : ` (${parsed.reason})`);
  throw new CliError(
    EXIT.CONFIG,
    `${stageFileName(stage)}: invalid Slack app setting: slack${printable(parsed.fault)}${reason}`,
  );
}

/**
 * `(app e2002's alertChannel C0OTHER00 is not one of its channels C0E2002AA: add it to channels, or name one of
 * them)` for a fault at `.apps[N].alertChannel`; null for any other. NOTE: only values matching the Slack schema's
 * own id patterns are named (the check that refused them ran after the patterns passed); anything else stays unnamed.
 */
function alertChannelFault(slack: unknown, fault: string): string | null {
  const index = /^\.apps\[(\d+)\]\.alertChannel$/.exec(fault)?.[1];
  if (index === undefined) return null;
  const apps = (slack as { apps?: unknown } | undefined)?.apps;
  const app = Array.isArray(apps) ? (apps[Number(index)] as Record<string, unknown> | undefined) : undefined;
  const id = (value: unknown, pattern: RegExp) =>
    typeof value === 'string' && pattern.test(value) ? printable(value) : null;
  const name = id(app?.id, SLACK_APP_ID_PATTERN);
  const alert = id(app?.alertChannel, SLACK_CHANNEL_ID_PATTERN);
  const channels = Array.isArray(app?.channels)
    ? app.channels.map((channel) => id(channel, SLACK_CHANNEL_ID_PATTERN))
    : [];
  if (name === null || alert === null || channels.length === 0 || channels.includes(null)) return null;
  return ` (app ${name}'s alertChannel ${alert} is not one of its channels ${channels.join(', ')}: add it to channels, or name one of them)`;
}

/** The names `namesOf` finds in each stage file of deploy/ (a file that does not read as one is skipped), sorted. */
function namesOfStageFiles(root: string, namesOf: (file: ReturnType<typeof readStageFile>) => Iterable<string>) {
  let files: string[];
  try {
    files = readdirSync(resolve(root, 'deploy')).filter((file) => /^[A-Za-z0-9][A-Za-z0-9-]{0,62}\.json$/.test(file));
  } catch {
    return [];
  }
  const names = new Set<string>();
  for (const file of files.slice(0, 200)) {
    try {
      for (const name of namesOf(readStageFile(file.slice(0, -'.json'.length), root))) names.add(name);
    } catch {
      // NOTE: a stage file that is not readable JSON names nothing here; serving it refuses it on its own.
    }
  }
  return [...names].sort();
}

/**
 * The Slack secret names every stage file in deploy/ names (a file that does not read as one is skipped): a variable
 * holding another stage's secret is known, though only the served stage's secrets are read.
 */
export function slackSecretNamesOfStageFiles(root: string = REPO_ROOT): string[] {
  return namesOfStageFiles(root, (stage) => {
    const parsed = parseStageSlack(stage.slack);
    return 'apps' in parsed ? slackSecretNames({ apps: parsed.apps }) : [];
  });
}

/**
 * The webhook mapping secret names (`triggers[].secret`, `Webhook…`) every stage file in deploy/ names, read leniently
 * (a mapping that is otherwise invalid still names its secret): as for the Slack secrets, another stage's is known.
 */
export function webhookSecretNamesOfStageFiles(root: string = REPO_ROOT): string[] {
  return namesOfStageFiles(root, (stage) =>
    (Array.isArray(stage.triggers) ? (stage.triggers as unknown[]) : []).flatMap((mapping) => {
      const secret = (mapping as { secret?: unknown } | null)?.secret;
      return typeof secret === 'string' && WEBHOOK_SECRET_NAME_PATTERN.test(secret) ? [secret] : [];
    }),
  );
}

/**
 * The change sources' secret names (`changes.sources[].secret`, `Change…`) every stage file in deploy/ names, read
 * leniently: as for the Slack and webhook secrets, another stage's is known.
 */
export function changeSecretNamesOfStageFiles(root: string = REPO_ROOT): string[] {
  return namesOfStageFiles(root, (stage) => {
    const sources = (stage.changes as { sources?: unknown } | undefined)?.sources;
    return (Array.isArray(sources) ? (sources as unknown[]) : []).flatMap((source) => {
      const secret = (source as { secret?: unknown } | null)?.secret;
      return typeof secret === 'string' && CHANGE_SECRET_NAME_PATTERN.test(secret) ? [secret] : [];
    });
  });
}
