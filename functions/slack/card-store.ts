/**
 * Port and adapters: the Slack cards of runs, and the one-time claims of Slack requests. Items live in partitions of
 * their own, beside the run's (the run's item is written by its lifecycle only):
 * - `SLACKCARD#<runId>` / `CARD`: where the run's card is (app, team, channel, its `ts`, the thread it is in), the
 *   enterprise and session it was posted for, and its throttle (`last_update_at`, `blocked_until`);
 * - `SLACKMSG#<appId>#<channelId>#<ts>` / `CARD`: the run a posted card is, found from a button click or a thread;
 * - `SLACKREQ#<key>` / `CLAIM`: a request signature or an event id, claimed once until its `ttl`.
 * NOTE: every decision is a conditional write, so two invocations never post two cards for one run, and a storm of
 * progress records takes one update slot per interval.
 */
import {
  ConditionalCheckFailedException,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import * as v from 'valibot';

export interface SlackCard {
  runId: string;
  appId: string;
  teamId: string;
  channelId: string;
  enterpriseId: string;
  sessionId: string;
  /** The card's own message; null until it is posted. */
  ts: string | null;
  /** The thread the card is in (a follow-up's root card); null for a card at the channel's top level. */
  threadTs: string | null;
  /** What the card says of its run while it works (the started card's subject). */
  query: string;
  startedBy: string;
  followUp: boolean;
  /** The card shows the result (no more progress updates). */
  final: boolean;
  lastUpdateAt: number;
  /** A 429's `Retry-After`, as an instant (ms): no update before it. */
  blockedUntil: number;
  ratings: number;
}

/** The run a posted card is, as a click or a thread reply finds it. */
export interface CardMessageRef {
  runId: string;
  enterpriseId: string;
  sessionId: string;
  appId: string;
  channelId: string;
  /** The thread root of the card (itself for a top-level card). */
  rootTs: string;
}

export type NewSlackCard = Omit<SlackCard, 'ts' | 'final' | 'lastUpdateAt' | 'blockedUntil' | 'ratings'>;

/** Port: the cards. */
export interface CardStore {
  /** Creates the run's card record; false when the run has one already (a retried event, a second worker). */
  claimCard(card: NewSlackCard, nowMs: number): Promise<boolean>;
  getCard(runId: string): Promise<SlackCard | null>;
  /** The card was posted as `ts`: recorded on the card, and its message made findable. */
  markPosted(runId: string, ts: string, nowMs: number): Promise<void>;
  findByMessage(appId: string, channelId: string, ts: string): Promise<CardMessageRef | null>;
  /**
   * Takes the card's next update: a progress update only when the last one is `minIntervalMs` old and no 429 blocks
   * it; the final one whenever no 429 blocks it, once. False: skipped (a newer record will carry the state).
   */
  takeUpdateSlot(runId: string, nowMs: number, minIntervalMs: number, final: boolean): Promise<boolean>;
  /** A 429: no update before `untilMs`; a final update not sent is given back. */
  recordBlocked(runId: string, untilMs: number, final: boolean): Promise<void>;
  addRating(runId: string): Promise<number>;
  /** Claims `key` once until `expiresAt` (ms): false when it is held. */
  claimOnce(key: string, nowMs: number, expiresAt: number): Promise<boolean>;
}

const cardKey = (runId: string) => ({ pk: `SLACKCARD#${runId}`, sk: 'CARD' });
const messageKey = (appId: string, channelId: string, ts: string) => ({
  pk: `SLACKMSG#${appId}#${channelId}#${ts}`,
  sk: 'CARD',
});
const claimKey = (key: string) => ({ pk: `SLACKREQ#${key}`, sk: 'CLAIM' });

const cardItemSchema = v.object({
  run_id: v.string(),
  app_id: v.string(),
  team_id: v.string(),
  channel_id: v.string(),
  enterprise_id: v.string(),
  session_id: v.string(),
  ts: v.optional(v.nullable(v.string()), null),
  thread_ts: v.optional(v.nullable(v.string()), null),
  query: v.string(),
  started_by: v.string(),
  follow_up: v.boolean(),
  final: v.optional(v.boolean(), false),
  last_update_at: v.optional(v.number(), 0),
  blocked_until: v.optional(v.number(), 0),
  ratings: v.optional(v.number(), 0),
});

function cardOf(item: Record<string, unknown>): SlackCard | null {
  const parsed = v.safeParse(cardItemSchema, item);
  if (!parsed.success) return null;
  const card = parsed.output;
  return {
    runId: card.run_id,
    appId: card.app_id,
    teamId: card.team_id,
    channelId: card.channel_id,
    enterpriseId: card.enterprise_id,
    sessionId: card.session_id,
    ts: card.ts,
    threadTs: card.thread_ts,
    query: card.query,
    startedBy: card.started_by,
    followUp: card.follow_up,
    final: card.final,
    lastUpdateAt: card.last_update_at,
    blockedUntil: card.blocked_until,
    ratings: card.ratings,
  };
}

const messageItemSchema = v.object({
  run_id: v.string(),
  enterprise_id: v.string(),
  session_id: v.string(),
  app_id: v.string(),
  channel_id: v.string(),
  root_ts: v.string(),
});

export interface DynamoCardStoreOptions {
  client: DynamoDBClient;
  tableName: string;
  retentionDays?: number;
}

export function createDynamoCardStore(options: DynamoCardStoreOptions): CardStore {
  const { client, tableName } = options;
  const retention = (nowMs: number) => Math.floor(nowMs / 1_000) + (options.retentionDays ?? 90) * 86_400;
  const conditional = async (send: () => Promise<unknown>) => {
    try {
      await send();
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  };
  const getCard = async (runId: string) => {
    const answer = await client.send(
      new GetItemCommand({ TableName: tableName, Key: marshall(cardKey(runId)), ConsistentRead: true }),
    );
    return answer.Item === undefined ? null : cardOf(unmarshall(answer.Item));
  };
  return {
    claimCard: (card, nowMs) =>
      conditional(() =>
        client.send(
          new PutItemCommand({
            TableName: tableName,
            Item: marshall({
              ...cardKey(card.runId),
              entity: 'slack_card',
              run_id: card.runId,
              app_id: card.appId,
              team_id: card.teamId,
              channel_id: card.channelId,
              enterprise_id: card.enterpriseId,
              session_id: card.sessionId,
              thread_ts: card.threadTs,
              query: card.query,
              started_by: card.startedBy,
              follow_up: card.followUp,
              final: false,
              last_update_at: 0,
              blocked_until: 0,
              ratings: 0,
              created_at: nowMs,
              ttl: retention(nowMs),
            }),
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        ),
      ),
    getCard,
    async markPosted(runId, ts, nowMs) {
      const card = await getCard(runId);
      if (card === null) return;
      await client.send(
        new PutItemCommand({
          TableName: tableName,
          Item: marshall({
            ...messageKey(card.appId, card.channelId, ts),
            entity: 'slack_message',
            run_id: runId,
            enterprise_id: card.enterpriseId,
            session_id: card.sessionId,
            app_id: card.appId,
            channel_id: card.channelId,
            root_ts: card.threadTs ?? ts,
            ttl: retention(nowMs),
          }),
        }),
      );
      await client.send(
        new UpdateItemCommand({
          TableName: tableName,
          Key: marshall(cardKey(runId)),
          UpdateExpression: 'SET ts = :ts, last_update_at = :now',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: marshall({ ':ts': ts, ':now': nowMs }),
        }),
      );
    },
    async findByMessage(appId, channelId, ts) {
      const answer = await client.send(
        new GetItemCommand({
          TableName: tableName,
          Key: marshall(messageKey(appId, channelId, ts)),
          ConsistentRead: true,
        }),
      );
      if (answer.Item === undefined) return null;
      const parsed = v.safeParse(messageItemSchema, unmarshall(answer.Item));
      if (!parsed.success) return null;
      const item = parsed.output;
      return {
        runId: item.run_id,
        enterpriseId: item.enterprise_id,
        sessionId: item.session_id,
        appId: item.app_id,
        channelId: item.channel_id,
        rootTs: item.root_ts,
      };
    },
    takeUpdateSlot: (runId, nowMs, minIntervalMs, final) =>
      conditional(() =>
        client.send(
          new UpdateItemCommand({
            TableName: tableName,
            Key: marshall(cardKey(runId)),
            UpdateExpression: final ? 'SET last_update_at = :now, #final = :true' : 'SET last_update_at = :now',
            ConditionExpression: final
              ? 'attribute_exists(ts) AND #final = :false AND blocked_until <= :now'
              : 'attribute_exists(ts) AND #final = :false AND blocked_until <= :now AND last_update_at <= :since',
            ExpressionAttributeNames: { '#final': 'final' },
            ExpressionAttributeValues: marshall({
              ':now': nowMs,
              ':false': false,
              ...(final ? { ':true': true } : { ':since': nowMs - minIntervalMs }),
            }),
          }),
        ),
      ),
    async recordBlocked(runId, untilMs, final) {
      await client.send(
        new UpdateItemCommand({
          TableName: tableName,
          Key: marshall(cardKey(runId)),
          UpdateExpression: final ? 'SET blocked_until = :until, #final = :false' : 'SET blocked_until = :until',
          ConditionExpression: 'attribute_exists(pk)',
          ...(final ? { ExpressionAttributeNames: { '#final': 'final' } } : {}),
          ExpressionAttributeValues: marshall({ ':until': untilMs, ...(final ? { ':false': false } : {}) }),
        }),
      );
    },
    async addRating(runId) {
      const answer = await client.send(
        new UpdateItemCommand({
          TableName: tableName,
          Key: marshall(cardKey(runId)),
          UpdateExpression: 'ADD ratings :one',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: marshall({ ':one': 1 }),
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return Number(answer.Attributes?.ratings?.N ?? 0);
    },
    claimOnce: (key, nowMs, expiresAt) =>
      conditional(() =>
        client.send(
          new PutItemCommand({
            TableName: tableName,
            Item: marshall({ ...claimKey(key), entity: 'slack_claim', ttl: Math.ceil(expiresAt / 1_000) }),
            ConditionExpression: 'attribute_not_exists(pk) OR #ttl < :now',
            ExpressionAttributeNames: { '#ttl': 'ttl' },
            ExpressionAttributeValues: marshall({ ':now': Math.floor(nowMs / 1_000) }),
          }),
        ),
      ),
  };
}

/** The in-memory twin (tests, the local runner), with the same conditions. */
export function createMemoryCardStore(): CardStore {
  const cards = new Map<string, SlackCard>();
  const messages = new Map<string, CardMessageRef>();
  const claims = new Map<string, number>();
  return {
    async claimCard(card) {
      if (cards.has(card.runId)) return false;
      cards.set(card.runId, { ...card, ts: null, final: false, lastUpdateAt: 0, blockedUntil: 0, ratings: 0 });
      return true;
    },
    async getCard(runId) {
      const card = cards.get(runId);
      return card === undefined ? null : { ...card };
    },
    async markPosted(runId, ts, nowMs) {
      const card = cards.get(runId);
      if (card === undefined) return;
      messages.set(`${card.appId}#${card.channelId}#${ts}`, {
        runId,
        enterpriseId: card.enterpriseId,
        sessionId: card.sessionId,
        appId: card.appId,
        channelId: card.channelId,
        rootTs: card.threadTs ?? ts,
      });
      card.ts = ts;
      card.lastUpdateAt = nowMs;
    },
    async findByMessage(appId, channelId, ts) {
      const ref = messages.get(`${appId}#${channelId}#${ts}`);
      return ref === undefined ? null : { ...ref };
    },
    async takeUpdateSlot(runId, nowMs, minIntervalMs, final) {
      const card = cards.get(runId);
      if (card === undefined || card.ts === null || card.final || card.blockedUntil > nowMs) return false;
      if (!final && card.lastUpdateAt > nowMs - minIntervalMs) return false;
      card.lastUpdateAt = nowMs;
      if (final) card.final = true;
      return true;
    },
    async recordBlocked(runId, untilMs, final) {
      const card = cards.get(runId);
      if (card === undefined) return;
      card.blockedUntil = untilMs;
      if (final) card.final = false;
    },
    async addRating(runId) {
      const card = cards.get(runId);
      if (card === undefined) return 0;
      card.ratings += 1;
      return card.ratings;
    },
    async claimOnce(key, nowMs, expiresAt) {
      const held = claims.get(key);
      if (held !== undefined && held >= nowMs) return false;
      claims.set(key, expiresAt);
      return true;
    },
  };
}
