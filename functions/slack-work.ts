/**
 * The SlackWork function, on the SlackWork queue and the table's stream: runs started from Slack, follow-ups, ratings,
 * and each run's card kept up to date (functions/handlers/slack-work-handler.ts).
 */

import { createSlackWorkHandler } from './handlers/slack-work-handler.ts';
import { createObservability } from './setup/observability.ts';
import { loadSlackWork } from './setup/slack-work-setup.ts';

const { deps, requeue } = await loadSlackWork();

export const handler = createSlackWorkHandler(deps, { ...createObservability('SlackWork'), requeue });
