/**
 * Every kind of item the table holds, in one registry: its partition (and the `dynamodb:LeadingKeys` pattern a grant
 * names it by), its sort key, how long it is kept, and the module that builds and reads it. docs/data-model.md's item
 * tables are generated from it (`npm run docs:data-model`), and the infrastructure code grants each function the
 * partitions it serves by name from it, so the page, the grants and the items cannot drift apart. Plain constants, no
 * imports: the SST config loads this file at deploy time.
 */

/** The table's partitions by name: the `dynamodb:LeadingKeys` pattern that covers each one's keys. */
export const TABLE_PARTITIONS = Object.freeze({
  RUN: 'RUN#*',
  REASONING: 'REASONING#*',
  PSEUDONYMS: 'PSEUDONYMS#*',
  FEEDBACK: 'FEEDBACK#*',
  DELIVERY: 'DELIVERY#*',
  TENANT_LEASE: 'TENANT#*#LEASE',
  TENANT_OPEN: 'TENANT#*#OPEN',
  INCIDENT: 'INCIDENT#*',
  PAST: 'PAST#*',
  WEBHOOK: 'WEBHOOK#*',
  CHANGES: 'CHANGES#*',
  SLACK_CARD: 'SLACKCARD#*',
  SLACK_MESSAGE: 'SLACKMSG#*',
  SLACK_REQUEST: 'SLACKREQ#*',
  SLACK_CHANNEL: 'SLACKCHAN#*',
} as const);
export type PartitionName = keyof typeof TABLE_PARTITIONS;

/** The group a kind is listed in: a run's partitions, an enterprise's (or an incident's, a sender's), the Slack app's. */
export type ItemGroup = 'run' | 'enterprise' | 'slack';

export interface ItemKind {
  group: ItemGroup;
  /** The item as the page names it, with its `entity` (Markdown). */
  item: string;
  partition: PartitionName;
  /** The partition key's form (`<…>`: a value). */
  pk: string;
  /** The sort key's form (Markdown). */
  sk: string;
  /** How long it is kept, its `ttl` (Markdown). */
  ttl: string;
  /** The module that builds and reads it. */
  module: string;
}

const CORE = 'packages/core/src/store/items/';
const SLACK = 'functions/slack/card-items.ts';

/** One row a kind: group, item, partition, pk, sk, ttl, module. */
const ROWS: readonly (readonly [ItemGroup, string, PartitionName, string, string, string, string])[] = [
  ['run', 'run (`run`)', 'RUN', 'RUN#<runId>', '`RUN`', '`RETENTION_DAYS`', `${CORE}run-item.ts`],
  [
    'run',
    'model step (`agent_step`)',
    'RUN',
    'RUN#<runId>',
    '`STEP#0001`, …',
    '`RETENTION_DAYS`',
    `${CORE}step-item.ts`,
  ],
  ['run', 'tool invocation', 'RUN', 'RUN#<runId>', '`TOOL#<toolCallId>`', '`RETENTION_DAYS`', `${CORE}tool-item.ts`],
  [
    'run',
    'reasoning (`agent_reasoning_…`)',
    'REASONING',
    'REASONING#<runId>',
    '`STEP#0001`, …',
    '`REASONING_RETENTION_DAYS`',
    `${CORE}reasoning-item.ts`,
  ],
  [
    'run',
    'pseudonym map (`pseudonym_map`)',
    'PSEUDONYMS',
    'PSEUDONYMS#<runId>',
    '`MAP#0001`, …',
    '`PSEUDONYM_RETENTION_DAYS`',
    `${CORE}pseudonym-item.ts`,
  ],
  [
    'run',
    'incident event',
    'RUN',
    'RUN#<runId>#EVENTS',
    '`EVENT#000001`, …',
    '`RETENTION_DAYS`',
    `${CORE}incident-item.ts`,
  ],
  [
    'run',
    'feedback (`run_feedback`)',
    'FEEDBACK',
    'FEEDBACK#<runId>',
    '`CALLER#<caller>#001`, …',
    "the run's",
    `${CORE}feedback-item.ts`,
  ],
  [
    'run',
    'delivery (`delivery`)',
    'DELIVERY',
    'DELIVERY#<runId>',
    '`DEST#<destinationId>`',
    '`RETENTION_DAYS`',
    'functions/delivery/delivery-items.ts',
  ],
  [
    'enterprise',
    'tenant lease (`tenant_lease`)',
    'TENANT_LEASE',
    'TENANT#<enterpriseId>#LEASE',
    '`SLOT#000`, …',
    'a day after its hold',
    'packages/core/src/store/dynamo/dynamo-tenant-lease-store.ts',
  ],
  [
    'enterprise',
    'open runs (`tenant_open_runs`)',
    'TENANT_OPEN',
    'TENANT#<enterpriseId>#OPEN',
    '`RUNS`',
    'none',
    `${CORE}open-runs-item.ts`,
  ],
  [
    'enterprise',
    'incident (`incident`)',
    'INCIDENT',
    'INCIDENT#<enterprise>#<source>#<hash>',
    '`INCIDENT`',
    '`RETENTION_DAYS`',
    `${CORE}incident-item.ts`,
  ],
  [
    'enterprise',
    'past incident (`past_incident`)',
    'PAST',
    'PAST#<enterpriseId>',
    '`AT#<t>#<id>`',
    'its own expiry',
    `${CORE}past-incident-item.ts`,
  ],
  [
    'enterprise',
    'its state (`…_state`)',
    'PAST',
    'PAST#<enterpriseId>',
    '`RUN#<id>`',
    'two years',
    `${CORE}past-incident-item.ts`,
  ],
  [
    'enterprise',
    'webhook event (`webhook_event`)',
    'WEBHOOK',
    'WEBHOOK#<source>#<hash>',
    '`WEBHOOK`',
    'its replay window',
    'packages/core/src/store/dynamo/dynamo-incident-store.ts',
  ],
  [
    'enterprise',
    'change (`change`)',
    'CHANGES',
    'CHANGES#<enterpriseId>',
    '`AT#<t>#<id>`',
    '`CHANGE_RETENTION_…`',
    `${CORE}change-item.ts`,
  ],
  [
    'enterprise',
    'its claim (`change_claim`)',
    'CHANGES',
    'CHANGES#<enterpriseId>',
    '`ID#<id>`',
    "the change's",
    `${CORE}change-item.ts`,
  ],
  ['slack', 'run card (`slack_card`)', 'SLACK_CARD', 'SLACKCARD#<runId>', '`CARD`', '`RETENTION_DAYS`', SLACK],
  [
    'slack',
    'card message (`slack_message`)',
    'SLACK_MESSAGE',
    'SLACKMSG#<appId>#<channelId>#<ts>',
    '`CARD`',
    '`RETENTION_DAYS`',
    SLACK,
  ],
  ['slack', 'request claim (`slack_claim`)', 'SLACK_REQUEST', 'SLACKREQ#<key>', '`CLAIM`', "its claim's end", SLACK],
  [
    'slack',
    'channel posts (`slack_channel`)',
    'SLACK_CHANNEL',
    'SLACKCHAN#<appId>#<channelId>',
    '`POSTS`',
    'a day after its last use',
    SLACK,
  ],
];

/** Every item kind of the table. */
export const ITEM_KINDS: readonly Readonly<ItemKind>[] = Object.freeze(
  ROWS.map(([group, item, partition, pk, sk, ttl, module]) =>
    Object.freeze({ group, item, partition, pk, sk, ttl, module }),
  ),
);

/** The LeadingKeys patterns of the partitions named: what a grant on the table names. */
export function partitionPatterns(names: readonly PartitionName[]): string[] {
  return names.map((name) => TABLE_PARTITIONS[name]);
}
