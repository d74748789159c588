/**
 * `POST /slack/{appId}/{events|interactivity|commands}`: Slack's requests to the app, not behind IAM (Slack's
 * signature is their authentication). Verified, acknowledged within Slack's 3 seconds, the work handed to the
 * SlackWork queue (functions/handlers/slack-request-handler.ts).
 */

import { createSlackRequestHandler } from './handlers/slack-request-handler.ts';
import { createObservability } from './setup/observability.ts';
import { loadSlackRequests } from './setup/slack-requests-setup.ts';

export const handler = createSlackRequestHandler(await loadSlackRequests(), createObservability('SlackRequests'));
