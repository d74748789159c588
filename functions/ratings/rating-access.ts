/**
 * What a rating needs of the deployment, in one place: the table items it reads and writes and the settings it
 * parses. The infrastructure code gives exactly these to every function that records ratings (RunFeedback and
 * SlackWork), so neither can be deployed without the grant or the setting the other has. Plain constants, no imports:
 * the SST config loads this file at deploy time.
 */

/**
 * The table access of a rating, by partition: its entry (`FEEDBACK#<runId>`), the run's pseudonym map
 * (`PSEUDONYMS#<runId>`: read, and added to with the rating's new pseudonyms), and the enterprise's past incidents
 * (`PAST#<enterpriseId>`: the run's state item read, then memory and state written in one transaction).
 */
export const RATING_TABLE_ACCESS: readonly {
  readonly actions: readonly string[];
  readonly partitions: readonly string[];
}[] = Object.freeze([
  { actions: ['Query', 'PutItem'], partitions: ['FEEDBACK#*', 'PSEUDONYMS#*'] },
  { actions: ['GetItem', 'PutItem', 'DeleteItem', 'ConditionCheckItem'], partitions: ['PAST#*'] },
]);

/** The settings a rating reads (`parseFeedbackSettings`) besides the table's: its masking and its retentions. */
export const RATING_SETTING_NAMES = Object.freeze([
  'MASKING',
  'MASKING_PATTERNS',
  'MASKING_EXCLUSIONS',
  'REASONING_RETENTION_DAYS',
  'PSEUDONYM_RETENTION_DAYS',
  'PAST_INCIDENT_RETENTION_DAYS',
] as const);
