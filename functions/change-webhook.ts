/**
 * `POST /changes/{source}` on the IngressApi (a change webhook by its id, or GitHub's `deployment_status`), not
 * behind IAM: each request is authenticated by its source's own secret over the raw bytes, checked for age, then
 * recorded once as a change of the mapping's enterprise (functions/changes/change-webhook-handler.ts).
 */

import { loadChanges } from './changes/change-setup.ts';
import { createChangeWebhookHandler } from './changes/change-webhook-handler.ts';
import { createObservability } from './lambda/observability.ts';

export const handler = createChangeWebhookHandler(await loadChanges(), createObservability('ChangeWebhook'));
