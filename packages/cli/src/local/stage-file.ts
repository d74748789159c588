import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { SettingsError, type TriggerMapping } from '@diagnosis/core';
import { parseTriggerSettings } from '@diagnosis/core/config';
import { type DestinationConfig, parseStageDelivery } from '@diagnosis/functions';
import { CliError, EXIT } from '../command-line.ts';
import { REPO_ROOT } from './local-runtime.ts';

/** The stage file (deploy/<stage>.json) as the local trigger reads it: its triggers and its delivery section. */
export function readStageFile(stage: string): { triggers?: unknown; delivery?: unknown } {
  if (!/^[A-Za-z0-9][A-Za-z0-9-]{0,62}$/.test(stage)) throw new CliError(EXIT.USAGE, 'bad stage name');
  const file = resolve(REPO_ROOT, 'deploy', `${stage}.json`);
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    throw new CliError(EXIT.USAGE, `no readable deploy/${stage}.json`);
  }
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
export function loadStageTriggers(stage: string): TriggerMapping[] {
  const json = readStageFile(stage);
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
