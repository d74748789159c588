import { parseStoreSettings, type TenantAccessPolicy } from '@diagnosis/core/config';
import {
  createDynamoAuditStore,
  createDynamoFeedbackStore,
  type DynamoAuditStore,
  type FeedbackStore,
} from '@diagnosis/core/store';
import { coldStart } from './cold-start.ts';
import { createDynamoClient } from './dynamo-client.ts';
import { readLinkedEnvironment } from './linked-environment.ts';

/** The cold start of the functions that read or write feedback: the run store, the feedback store, the policy. */
export function loadFeedbackStore(): Promise<{
  store: DynamoAuditStore;
  feedback: FeedbackStore;
  policy: TenantAccessPolicy;
}> {
  return coldStart(() => {
    const settings = parseStoreSettings(readLinkedEnvironment());
    const client = createDynamoClient(settings);
    return {
      store: createDynamoAuditStore({ client, tableName: settings.DIAGNOSIS_TABLE_NAME }),
      // NOTE: the table's default retention (90 days after the run was created), as the read functions assume.
      feedback: createDynamoFeedbackStore({ client, tableName: settings.DIAGNOSIS_TABLE_NAME }),
      policy: settings.TENANT_ACCESS ?? null,
    };
  });
}
