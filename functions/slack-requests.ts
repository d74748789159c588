/**
 * `POST /slack/{appId}/{events|interactivity|commands}`: Slack's requests to the app, on the IngressApi, not behind
 * IAM (Slack's signature is their authentication). Verified, acknowledged within Slack's 3 seconds, the work handed to the
 * SlackWork queue (functions/slack/slack-request-handler.ts).
 */

import { createObservability } from './lambda/observability.ts';
import { createSlackRequestHandler } from './slack/slack-request-handler.ts';
import { loadSlackRequests } from './slack/slack-requests-setup.ts';

export const handler = createSlackRequestHandler(await loadSlackRequests(), createObservability('SlackRequests'));
