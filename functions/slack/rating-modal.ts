/**
 * Opens the rating modal for the card a "Rate with a note…" click was on. NOTE: Slack's `trigger_id` is valid for 3
 * seconds, so the acknowledging function opens it itself; it imports this module (and with it the Slack client) only
 * when such a click arrives, so its cold start does not load `@slack/web-api`.
 */
import { buildRatingModal } from './run-card.ts';
import { createSlackApi, type SlackApi } from './slack-api.ts';
import { SlackCallError } from './slack-call-error.ts';
import type { ResolvedSlackApp } from './slack-settings.ts';

/** Opens the modal; only our own ids (the click's channel and message, the claimed run) go into its metadata. */
export async function openRatingModal(
  request: { triggerId: string; channelId: string; messageTs: string; claimedRunId: string },
  slack: SlackApi,
): Promise<void> {
  const opened = await slack.openView({
    triggerId: request.triggerId,
    view: buildRatingModal({ channelId: request.channelId, messageTs: request.messageTs, runId: request.claimedRunId }),
  });
  if (!opened.ok) throw new SlackCallError(opened.code);
}

/** The acknowledging function's modal opener: one client per app, built on the first note click. */
export function createRatingModalOpener(apiUrl: string | undefined, timeoutMs: number) {
  const clients = new Map<string, SlackApi>();
  return (app: ResolvedSlackApp, request: Parameters<typeof openRatingModal>[0]) => {
    let client = clients.get(app.id);
    if (client === undefined) {
      client = createSlackApi({ token: app.botToken, timeoutMs, ...(apiUrl === undefined ? {} : { apiUrl }) });
      clients.set(app.id, client);
    }
    return openRatingModal(request, client);
  };
}
