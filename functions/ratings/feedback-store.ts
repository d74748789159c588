import { type FeedbackMasking, loadCustomRules, type PastIncidentRetention } from '@diagnosis/core';
import { parseFeedbackSettings, type TenantAccessPolicy } from '@diagnosis/core/config';
import {
  createDynamoClient,
  createDynamoFeedbackStore,
  createDynamoPastIncidentStore,
  createDynamoRunStore,
  type FeedbackStore,
  type RunStore,
} from '@diagnosis/core/store';
import { coldStart } from '../lambda/cold-start.ts';
import { readLinkedEnvironment } from '../lambda/linked-environment.ts';
import { resolveMaskingSecret } from '../lambda/masking-secret.ts';

/**
 * The cold start of the feedback function: the run store, the feedback store, the past incidents a rating remembers
 * or retracts, the policy, and the masking a rating gets (the runs' own: mode, the stage's patterns, the secret). NOTE: the public development key only against a
 * DynamoDB Local endpoint; a function on a deployed table without `MaskingKey` has no secret (null), and refuses
 * every rating (`MASKING_UNAVAILABLE`) rather than store it unmasked or with pseudonyms of a public key.
 */
export function loadFeedbackStore(): Promise<{
  store: RunStore;
  feedback: FeedbackStore;
  policy: TenantAccessPolicy;
  masking: Omit<FeedbackMasking, 'pseudonyms'>;
  memory: PastIncidentRetention;
}> {
  return coldStart(async () => {
    const settings = parseFeedbackSettings(readLinkedEnvironment());
    const client = createDynamoClient(settings, process.env);
    return {
      store: createDynamoRunStore({
        client,
        tableName: settings.DIAGNOSIS_TABLE_NAME,
        pseudonymRetentionDays: settings.PSEUDONYM_RETENTION_DAYS ?? settings.REASONING_RETENTION_DAYS,
      }),
      // NOTE: the table's default retention (90 days after the run was created), as the read functions assume.
      feedback: createDynamoFeedbackStore({ client, tableName: settings.DIAGNOSIS_TABLE_NAME }),
      policy: settings.TENANT_ACCESS ?? null,
      // NOTE: ratings keep the enterprise's memory whether or not runs read it (PAST_INCIDENTS is the readers' switch).
      memory: {
        incidents: createDynamoPastIncidentStore({ client, tableName: settings.DIAGNOSIS_TABLE_NAME }),
        retentionDays: settings.PAST_INCIDENT_RETENTION_DAYS,
      },
      masking: {
        secret: resolveMaskingSecret(settings),
        mode: settings.MASKING,
        // NOTE: RE2JS is imported only when the stage defines patterns (see loadCustomRules).
        rules: await loadCustomRules(settings.MASKING_PATTERNS, settings.MASKING_EXCLUSIONS),
      },
    };
  });
}
