import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type FeedbackMasking, loadCustomRules } from '@diagnosis/core';
import type { FeedbackSettings } from '@diagnosis/core/config';
import { createDynamoFeedbackStore, createDynamoPastIncidentStore, createDynamoRunStore } from '@diagnosis/core/store';
import { resolveMaskingSecret } from '../lambda/masking-secret.ts';
import { createRating, type Rating } from './rating.ts';

export interface RatingParts {
  /** The diagnosis table: ratings, the runs' pseudonym maps and the past incidents all live in it. */
  client: DynamoDBClient;
  tableName: string;
  /** The masking the runs were masked with (mode, the stage's patterns, the secret: null refuses every rating). */
  masking: Omit<FeedbackMasking, 'pseudonyms'>;
  /** PAST_INCIDENT_RETENTION_DAYS: how long a rating's past incident is kept (docs/memory.md). */
  pastIncidentRetentionDays: number;
  /** How long a rating's new pseudonyms are kept (PSEUDONYM_RETENTION_DAYS, else REASONING_RETENTION_DAYS). */
  pseudonymRetentionDays?: number;
  now?: () => number;
}

/**
 * The rating use case on the diagnosis table, composed once for every path that records a rating: the RunFeedback
 * function and SlackWork (from their settings, `loadRating`), `diagnosis serve` and `diagnosis feedback`.
 */
export function composeRating(parts: RatingParts): Rating {
  const table = { client: parts.client, tableName: parts.tableName };
  return createRating({
    feedback: createDynamoFeedbackStore(table),
    masking: {
      ...parts.masking,
      pseudonyms: createDynamoRunStore({
        ...table,
        ...(parts.pseudonymRetentionDays === undefined ? {} : { pseudonymRetentionDays: parts.pseudonymRetentionDays }),
      }),
    },
    memory: { incidents: createDynamoPastIncidentStore(table), retentionDays: parts.pastIncidentRetentionDays },
    ...(parts.now === undefined ? {} : { now: parts.now }),
  });
}

/**
 * The rating of a deployed function, from the settings it parses (`parseFeedbackSettings`): the runs' masking (the
 * linked `MaskingKey`; the public development key only against DynamoDB Local), and the memory's retention. NOTE:
 * ratings keep the enterprise's memory whether or not runs read it (PAST_INCIDENTS is the readers' switch).
 */
export async function loadRating(settings: FeedbackSettings, client: DynamoDBClient): Promise<Rating> {
  return composeRating({
    client,
    tableName: settings.DIAGNOSIS_TABLE_NAME,
    masking: {
      secret: resolveMaskingSecret(settings),
      mode: settings.MASKING,
      // NOTE: RE2JS is imported only when the stage defines patterns (see loadCustomRules).
      rules: await loadCustomRules(settings.MASKING_PATTERNS, settings.MASKING_EXCLUSIONS),
    },
    pastIncidentRetentionDays: settings.PAST_INCIDENT_RETENTION_DAYS,
    pseudonymRetentionDays: settings.PSEUDONYM_RETENTION_DAYS ?? settings.REASONING_RETENTION_DAYS,
  });
}
