/**
 * `POST /triggers/{source}` (Alertmanager, PagerDuty), the only route not behind IAM: each request is authenticated by
 * its sender's own credential (a bearer token, an HMAC signature), checked for replay and staleness, then handled as
 * one incident like an alarm.
 */

import { createWebhookHandler } from './handlers/webhook-handler.ts';
import { coldStart } from './setup/cold-start.ts';
import { readLinkedSecret } from './setup/linked-environment.ts';
import { createObservability } from './setup/observability.ts';
import { loadTrigger } from './setup/trigger-setup.ts';
import { parseMappingSecrets } from './triggers/mapping-credentials.ts';

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
