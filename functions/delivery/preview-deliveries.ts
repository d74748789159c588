import { randomBytes } from 'node:crypto';
import { printable } from '@diagnosis/core';
import type { DestinationConfig } from './destinations.ts';
import { buildPagerDutyNote, type PagerDutyNoteRequest } from './pagerduty-note.ts';
import { envelopeOf, type RunFinishedEvent } from './run-finished-event.ts';
import { buildSlackMessage, renderSlackMessageForTerminal, type SlackMessage } from './slack-message.ts';
import { buildSnsMessage, renderSnsMessageForTerminal, type SnsMessage } from './sns-message.ts';
import { buildTeamsMessage } from './teams-card.ts';
import { buildWebhookRequest, renderWebhookRequestForTerminal, type WebhookRequest } from './webhook-request.ts';

/** What one destination would receive for a run, as the deployed sender builds it. */
export type DeliveryPreview =
  | { destinationId: string; type: 'slack'; payload: SlackMessage; text: string }
  | { destinationId: string; type: 'sns'; payload: SnsMessage; text: string }
  | { destinationId: string; type: 'webhook'; url: string; payload: WebhookRequest; text: string }
  | { destinationId: string; type: 'teams'; payload: Record<string, unknown>; text: string }
  | { destinationId: string; type: 'pagerduty'; payload: PagerDutyNoteRequest | null; text: string };

/**
 * The previews of a run's delivery (what `diagnosis trigger` shows): each destination's message built by the very
 * builders the DeliverResults function uses, from the `Diagnosis Run Finished` event, with its terminal rendering
 * (control characters replaced, Slack's escapes undone for reading). Without destinations the Slack message is shown
 * as a Slack destination would receive it. NOTE: a webhook preview is signed with a key made up here — the real key
 * is an SST secret this machine does not have — so its signature shows the format, not a deliverable value.
 */
export function previewDeliveries(
  event: RunFinishedEvent,
  destinations: readonly DestinationConfig[],
  nowMs: number,
): DeliveryPreview[] {
  const listed: readonly DestinationConfig[] =
    destinations.length > 0 ? destinations : [{ id: 'slack-preview', type: 'slack', secret: 'DestinationPreview' }];
  return listed.map((destination): DeliveryPreview => {
    if (destination.type === 'slack') {
      const payload = buildSlackMessage(event.detail);
      return { destinationId: destination.id, type: 'slack', payload, text: renderSlackMessageForTerminal(payload) };
    }
    if (destination.type === 'sns') {
      const payload = buildSnsMessage(event.detail);
      return { destinationId: destination.id, type: 'sns', payload, text: renderSnsMessageForTerminal(payload) };
    }
    if (destination.type === 'teams') {
      const payload = buildTeamsMessage(event.detail);
      return { destinationId: destination.id, type: 'teams', payload, text: JSON.stringify(payload, null, 2) };
    }
    if (destination.type === 'pagerduty') {
      const payload = buildPagerDutyNote(event.detail);
      const text =
        payload === null
          ? 'not sent: the run was not started by a PagerDuty webhook'
          : `POST ${payload.path}\n\n${JSON.parse(payload.body).note.content}`;
      return { destinationId: destination.id, type: 'pagerduty', payload, text: printable(text) };
    }
    const envelope = envelopeOf(event, {
      id: `preview-${event.detail.runId}`,
      time: new Date(nowMs).toISOString(),
      account: '000000000000',
      region: 'local',
    });
    const payload = buildWebhookRequest(envelope, destination.id, randomBytes(32).toString('hex'), nowMs);
    return {
      destinationId: destination.id,
      type: 'webhook',
      url: destination.url,
      payload,
      text: renderWebhookRequestForTerminal(destination.url, payload),
    };
  });
}
