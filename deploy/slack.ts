/**
 * The Slack apps' deployment as data (docs/chat.md): the secrets to declare and the table stream's filter of the
 * SlackWork function. Pure functions of the stage file's `slack` section, so the tests read what `sst.config.ts`
 * deploys.
 */
import { slackSecretNames } from '@diagnosis/functions/infrastructure';

export { slackSecretNames };

/**
 * Lambda's filter on the table's stream for the cards: a run item (`sk = RUN`) written (a new run, its progress, its
 * end), and a new rating (`entity = run_feedback`, inserted: the API's and the command line's ratings are shown on the
 * card too). NOTE: the function keeps only runs that have a card (or an enterprise with an alert channel), only one
 * update per card per interval, and only ratings not given in Slack; the filter is an optimisation, never the rule.
 */
export const SLACK_CARD_STREAM_FILTERS = Object.freeze([
  { eventName: ['INSERT', 'MODIFY'], dynamodb: { Keys: { sk: { S: ['RUN'] } } } },
  { eventName: ['INSERT'], dynamodb: { NewImage: { entity: { S: ['run_feedback'] } } } },
]);
