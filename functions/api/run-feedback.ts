import { parseFeedbackSettings, type TenantAccessPolicy } from '@diagnosis/core/config';
import { createDynamoClient, createDynamoRunStore, type RunStore } from '@diagnosis/core/store';
import { coldStart } from '../lambda/cold-start.ts';
import { readLinkedEnvironment } from '../lambda/linked-environment.ts';
import type { Rating } from '../ratings/rating.ts';
import { loadRating } from '../ratings/rating-setup.ts';

/**
 * The cold start of the feedback function: the run store (the tenant check reads the run), the policy, and the
 * rating use case (`loadRating`: the runs' masking, the ratings, the past incidents a rating remembers or retracts).
 * NOTE: the public development key only against a DynamoDB Local endpoint; a function on a deployed table without
 * `MaskingKey` has no secret, and refuses every rating (`MASKING_UNAVAILABLE`) rather than store it unmasked or with
 * pseudonyms of a public key.
 */
export function loadRunFeedback(): Promise<{ store: RunStore; policy: TenantAccessPolicy; rate: Rating }> {
  return coldStart(async () => {
    const settings = parseFeedbackSettings(readLinkedEnvironment());
    const client = createDynamoClient(settings, process.env);
    return {
      store: createDynamoRunStore({ client, tableName: settings.DIAGNOSIS_TABLE_NAME }),
      policy: settings.TENANT_ACCESS ?? null,
      rate: await loadRating(settings, client),
    };
  });
}
