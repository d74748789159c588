/**
 * The Slack apps' deployment as data (docs/chat.md): the secrets to declare and the table stream's filter of the
 * SlackWork function. Pure functions of the stage file's `slack` section, so the tests read what `sst.config.ts`
 * deploys.
 */
import { slackSecretNames } from '@diagnosis/functions/infrastructure';

export { slackSecretNames };

/**
 * Lambda's filter on the table's stream for the cards: a run item (`sk = RUN`) written (a new run, its progress, its
 * end). NOTE: the function keeps only runs that have a card (or an enterprise with an alert channel), and only one
 * update per card per interval; the filter is an optimisation, never the rule.
 */
export const SLACK_CARD_STREAM_FILTERS = Object.freeze([
  { eventName: ['INSERT', 'MODIFY'], dynamodb: { Keys: { sk: { S: ['RUN'] } } } },
]);
