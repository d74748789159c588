/**
 * The SlackWork function, on the SlackWork queue and the table's stream: runs started from Slack, follow-ups, ratings,
 * and each run's card kept up to date (functions/slack/slack-work-handler.ts).
 */

import { createObservability } from './lambda/observability.ts';
import { createSlackWorkHandler } from './slack/slack-work-handler.ts';
import { loadSlackWork } from './slack/slack-work-setup.ts';

const { deps, requeue } = await loadSlackWork();

export const handler = createSlackWorkHandler(deps, { ...createObservability('SlackWork'), requeue });
