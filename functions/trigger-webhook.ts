/**
 * `POST /triggers/{source}` (Alertmanager, PagerDuty), the only route not behind IAM: each request is authenticated by
 * its sender's own credential (a bearer token, an HMAC signature), checked for replay and staleness, then handled as
 * one incident like an alarm.
 */

import { createWebhookHandler } from './handlers/webhook-handler.ts';
import { createObservability } from './setup/observability.ts';
import { loadTrigger } from './setup/trigger-setup.ts';

const { settings, deps } = await loadTrigger();

export const handler = createWebhookHandler(
  {
    ...deps,
    secrets: {
      alertmanagerToken: settings.ALERTMANAGER_WEBHOOK_TOKEN,
      pagerdutySecrets: settings.PAGERDUTY_WEBHOOK_SECRETS,
    },
  },
  createObservability('TriggerWebhook'),
);
