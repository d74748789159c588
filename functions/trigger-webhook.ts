/**
 * `POST /triggers/{source}` (Alertmanager, PagerDuty), on the IngressApi, not behind IAM: each request is authenticated
 * by its sender's own credential (a bearer token, an HMAC signature), checked for replay and staleness, then handled as
 * one incident like an alarm.
 */

import { coldStart } from './lambda/cold-start.ts';
import { readLinkedSecret } from './lambda/linked-environment.ts';
import { createObservability } from './lambda/observability.ts';
import { parseMappingSecrets } from './triggers/mapping-credentials.ts';
import { loadTrigger } from './triggers/trigger-setup.ts';
import { createWebhookHandler } from './triggers/webhook-handler.ts';

const { settings, deps } = await loadTrigger();
// NOTE: each webhook mapping's own secret (stage file `secret`) is an SST secret linked to this function.
const mappingSecrets = await coldStart(() => parseMappingSecrets(settings.TRIGGERS, readLinkedSecret));

export const handler = createWebhookHandler(
  {
    ...deps,
    secrets: {
      alertmanagerToken: settings.ALERTMANAGER_WEBHOOK_TOKEN,
      pagerdutySecrets: settings.PAGERDUTY_WEBHOOK_SECRETS,
      mappingSecrets,
    },
  },
  createObservability('TriggerWebhook'),
);
