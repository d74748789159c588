import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { SettingsError, type TriggerMapping } from '@diagnosis/core';
import { findTriggerMappingFaults, parseTriggerSettings } from '@diagnosis/core/config';
import { type DestinationConfig, parseStageDelivery } from '@diagnosis/functions';
import { CliError, EXIT, printable } from '../command-line.ts';
import { REPO_ROOT } from './local-runtime.ts';

/**
 * The stage file (deploy/<stage>.json) as the local trigger reads it: its triggers and its delivery section. A file
 * that is not JSON is refused as such, with the line and column of the fault (never the file's text: Node's own
 * message quotes it).
 */
export function readStageFile(stage: string, root: string = REPO_ROOT): { triggers?: unknown; delivery?: unknown } {
  if (!/^[A-Za-z0-9][A-Za-z0-9-]{0,62}$/.test(stage)) throw new CliError(EXIT.USAGE, 'bad stage name');
  const file = resolve(root, 'deploy', `${stage}.json`);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new CliError(EXIT.USAGE, `no readable deploy/${stage}.json`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new CliError(EXIT.CONFIG, `deploy/${stage}.json is not valid JSON: ${jsonFaultAt(text, error)}`);
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
  if (delivery === null) throw new CliError(EXIT.CONFIG, `deploy/${stage}.json: its delivery section is invalid`);
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
    throw new CliError(EXIT.CONFIG, `deploy/${stage}.json: invalid trigger mapping: ${fields.join(', ')}`);
  }
  try {
    // NOTE: the Trigger functions' own parse of TRIGGERS, which the deploy's check of the stage file shares.
    return parseTriggerSettings({ DIAGNOSIS_TABLE_NAME: 'stage-check', TRIGGERS: JSON.stringify(json.triggers ?? []) })
      .TRIGGERS;
  } catch (error) {
    if (error instanceof SettingsError)
      throw new CliError(EXIT.CONFIG, `deploy/${stage}.json: its triggers are invalid`);
    throw error;
  }
}
