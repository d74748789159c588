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

/**
 * The SlackCards mapping's batching, stated rather than left to Lambda's defaults (for a DynamoDB stream: 100
 * records, no window; docs.aws.amazon.com/lambda/latest/dg/services-ddb-params.html) so that bench/slack-card.ts
 * simulates the mapping from the values deployed. NOTE: no batching window: the first card (a run inserted) and the
 * final one (a run ended) reach SlackWork at the mapping's next poll of the shard, not up to a window later. Not a
 * second mapping for them: the table's stream already has two readers (this one and RunFinished), and Lambda documents
 * two as the most a DynamoDB stream's shard serves before it throttles. Progress still coalesces in the function: a
 * record within the card's 5 s interval costs one read.
 */
export const SLACK_CARD_STREAM_BATCHING = Object.freeze({ batchSize: 100, maximumBatchingWindowInSeconds: 0 });
