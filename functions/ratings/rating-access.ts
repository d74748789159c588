/**
 * What a rating needs of the deployment, in one place: the table items it reads and writes and the settings it
 * parses. The infrastructure code gives exactly these to every function that records ratings (RunFeedback and
 * SlackWork), so neither can be deployed without the grant or the setting the other has. Plain constants and the item
 * registry's partitions: the SST config loads this file at deploy time.
 */
import { type PartitionName, partitionPatterns } from '../lambda/item-kinds.ts';

/**
 * The table access of a rating, by partition: its entry (`FEEDBACK#<runId>`), the run's pseudonym map
 * (`PSEUDONYMS#<runId>`: read, and added to with the rating's new pseudonyms), and the enterprise's past incidents
 * (`PAST#<enterpriseId>`: the run's state item read, then memory and state written in one transaction).
 */
export const RATING_TABLE_ACCESS: readonly {
  readonly actions: readonly string[];
  /** The partitions by their name in the item registry (what the deploy's grants name them by). */
  readonly names: readonly PartitionName[];
  /** Their `dynamodb:LeadingKeys` patterns. */
  readonly partitions: readonly string[];
}[] = Object.freeze([
  access(['Query', 'PutItem'], ['FEEDBACK', 'PSEUDONYMS']),
  access(['GetItem', 'PutItem', 'DeleteItem', 'ConditionCheckItem'], ['PAST']),
]);

function access(actions: readonly string[], names: readonly PartitionName[]) {
  return Object.freeze({ actions, names, partitions: partitionPatterns(names) });
}

/** The settings a rating reads (`parseFeedbackSettings`) besides the table's: its masking and its retentions. */
export const RATING_SETTING_NAMES = Object.freeze([
  'MASKING',
  'MASKING_PATTERNS',
  'MASKING_EXCLUSIONS',
  'REASONING_RETENTION_DAYS',
  'PSEUDONYM_RETENTION_DAYS',
  'PAST_INCIDENT_RETENTION_DAYS',
] as const);
