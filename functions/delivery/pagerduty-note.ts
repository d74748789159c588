/**
 * The note a result adds to the PagerDuty incident that started its run (REST API v2, `POST /incidents/{id}/notes`):
 * the plain text of the SNS email (the same words, the AI notice first), fitted into `PAGERDUTY_NOTE_CHARS`.
 * NOTE: PagerDuty documents no note length; 25,000 characters is its web UI's bound on a note, and we stay well under
 * it so a note is read, not scrolled. The incident id comes from the stored run's trigger (the webhook's
 * `event.data.id`, checked when the run started), never from anything the result's text says.
 */
import { fitText } from './fit-text.ts';
import type { RunFinishedDetail } from './run-finished-event.ts';
import { buildSnsMessage } from './sns-message.ts';

export const PAGERDUTY_NOTE_CHARS = 10_000;
/** A PagerDuty incident id: upper-case letters and digits (`Q1R2…`, `PT4KHLK`). */
const PAGERDUTY_INCIDENT_ID_PATTERN = /^[A-Z0-9]{4,32}$/;
/** PagerDuty's REST API, the only host a note is sent to. */
export const PAGERDUTY_API_URL = 'https://api.pagerduty.com';

export interface PagerDutyNoteRequest {
  /** Path and query below the API's URL. */
  path: string;
  body: string;
}

/**
 * The note request of a result, or null when the run was not started by a PagerDuty webhook (nothing is sent there)
 * or its incident key is not an incident id.
 */
export function buildPagerDutyNote(detail: RunFinishedDetail): PagerDutyNoteRequest | null {
  if (detail.trigger === null || detail.trigger.source !== 'pagerduty') return null;
  const incidentId = detail.trigger.incidentKey;
  if (!PAGERDUTY_INCIDENT_ID_PATTERN.test(incidentId)) return null;
  const content = fitText(buildSnsMessage(detail).message.email, PAGERDUTY_NOTE_CHARS).text;
  return {
    path: `/incidents/${encodeURIComponent(incidentId)}/notes`,
    body: JSON.stringify({ note: { content } }),
  };
}

/** Whether a result goes to a PagerDuty destination at all: only a run a PagerDuty webhook started. */
export function appliesToPagerDuty(detail: RunFinishedDetail): boolean {
  return buildPagerDutyNote(detail) !== null;
}
