import { parseStoreSettings, type TenantAccessPolicy } from '@diagnosis/core/config';
import {
  createDynamoClient,
  createDynamoFeedbackStore,
  createDynamoRunStore,
  type FeedbackStore,
  type RunStore,
} from '@diagnosis/core/store';
import { coldStart } from './cold-start.ts';
import { readLinkedEnvironment } from './linked-environment.ts';

/** The cold start of the functions that read or write feedback: the run store, the feedback store, the policy. */
export function loadFeedbackStore(): Promise<{
  store: RunStore;
  feedback: FeedbackStore;
  policy: TenantAccessPolicy;
}> {
  return coldStart(() => {
    const settings = parseStoreSettings(readLinkedEnvironment());
    const client = createDynamoClient(settings, process.env);
    return {
      store: createDynamoRunStore({ client, tableName: settings.DIAGNOSIS_TABLE_NAME }),
      // NOTE: the table's default retention (90 days after the run was created), as the read functions assume.
      feedback: createDynamoFeedbackStore({ client, tableName: settings.DIAGNOSIS_TABLE_NAME }),
      policy: settings.TENANT_ACCESS ?? null,
    };
  });
}
