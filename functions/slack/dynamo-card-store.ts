/**
 * The card store on the diagnosis table (port: `card-store.ts`; items: `card-items.ts`). Every decision is one
 * conditional write: a card is claimed once, a lease is taken only on the version of the card it was decided from,
 * and a lease's records only while its id still holds it.
 */
import { randomUUID } from 'node:crypto';
import {
  ConditionalCheckFailedException,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { ttlFor } from '@diagnosis/core/store';
import {
  cardKey,
  cardOf,
  channelItem,
  channelKey,
  claimItem,
  messageItem,
  messageKey,
  messageRefOf,
  newCardItem,
} from './card-items.ts';
import { type CardFace, type CardLease, CardLeaseLostError, type CardStore, leaseAllows } from './card-store.ts';

export interface DynamoCardStoreOptions {
  client: DynamoDBClient;
  tableName: string;
  /** Days a card and its message item are kept (its `ttl`), like the run's items. */
  retentionDays?: number;
}

const conditional = async <T>(send: () => Promise<T>): Promise<T | null> => {
  try {
    return await send();
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return null;
    throw error;
  }
};

export function createDynamoCardStore(options: DynamoCardStoreOptions): CardStore {
  const { client, tableName } = options;
  const retentionDays = options.retentionDays ?? 90;

  /** Updates the card under `condition`; the card as written, or null when the condition failed. */
  const updateCard = (
    runId: string,
    set: Record<string, unknown>,
    condition: string,
    values: Record<string, unknown> = {},
  ) => {
    const names = Object.fromEntries(Object.keys(set).map((name, index) => [`#s${index}`, name]));
    const assignments = Object.keys(set).map((_name, index) => `#s${index} = :s${index}`);
    return conditional(() =>
      client.send(
        new UpdateItemCommand({
          TableName: tableName,
          Key: marshall(cardKey(runId)),
          UpdateExpression: `SET ${assignments.join(', ')} ADD #version :one`,
          ConditionExpression: condition,
          ExpressionAttributeNames: { ...names, '#version': 'version' },
          ExpressionAttributeValues: marshall({
            ...Object.fromEntries(Object.values(set).map((value, index) => [`:s${index}`, value])),
            ...values,
            ':one': 1,
          }),
          ReturnValues: 'ALL_NEW',
        }),
      ),
    );
  };
  const held = (lease: CardLease) => ({ condition: 'lease_id = :lease', values: { ':lease': lease.id } });
  const ended = { lease_until: 0, lease_id: '' };

  const getCard = async (runId: string) => {
    const answer = await client.send(
      new GetItemCommand({ TableName: tableName, Key: marshall(cardKey(runId)), ConsistentRead: true }),
    );
    return answer.Item === undefined ? null : cardOf(unmarshall(answer.Item));
  };

  const recordOnLease = async (lease: CardLease, set: Record<string, unknown>) => {
    const { condition, values } = held(lease);
    if ((await updateCard(lease.runId, set, condition, values)) === null) throw new CardLeaseLostError();
  };

  return {
    async claimCard(card, nowMs, leaseMs) {
      const lease = { id: randomUUID(), until: nowMs + leaseMs };
      const item = newCardItem(card, lease, nowMs, retentionDays);
      const put = await conditional(() =>
        client.send(
          new PutItemCommand({
            TableName: tableName,
            Item: marshall(item, { removeUndefinedValues: true }),
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        ),
      );
      return put === null ? null : { runId: card.runId, ...lease, card: cardOf(item) };
    },

    getCard,

    async takeLease(card, purpose, nowMs, leaseMs, minIntervalMs) {
      if (!leaseAllows(card, purpose, nowMs, minIntervalMs)) return null;
      const lease = { id: randomUUID(), until: nowMs + leaseMs };
      const answer = await updateCard(
        card.runId,
        {
          lease_until: lease.until,
          lease_id: lease.id,
          ...(purpose === 'post' ? {} : { last_update_at: nowMs }),
        },
        // NOTE: cards written before versions were kept have none: version 0.
        card.version === 0 ? 'attribute_exists(pk) AND attribute_not_exists(version)' : 'version = :version',
        card.version === 0 ? {} : { ':version': card.version },
      );
      if (answer === null) return null;
      return { runId: card.runId, ...lease, card: cardOf(unmarshall(answer.Attributes ?? {})) };
    },

    async recordPosted(lease, ts, nowMs) {
      await client.send(
        new PutItemCommand({
          TableName: tableName,
          Item: marshall(messageItem(lease.card, ts, nowMs, retentionDays)),
        }),
      );
      await recordOnLease(lease, { ts, face: 'STARTED', last_update_at: nowMs, ...ended });
    },

    recordDrawn: (lease, face: CardFace, ratings, keep) =>
      recordOnLease(lease, { face, face_ratings: ratings, ...(keep ? {} : ended) }),

    recordDetailsPosted: (lease) => recordOnLease(lease, { details_posted: true, ...ended }),

    async releaseLease(lease, blockedUntil) {
      const { condition, values } = held(lease);
      // NOTE: a lease that ended meanwhile is no one's to release: nothing to do.
      await updateCard(
        lease.runId,
        { ...ended, ...(blockedUntil === undefined ? {} : { blocked_until: blockedUntil }) },
        condition,
        values,
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
      return answer.Item === undefined ? null : messageRefOf(unmarshall(answer.Item));
    },

    async addRating(runId) {
      const answer = await conditional(() =>
        client.send(
          new UpdateItemCommand({
            TableName: tableName,
            Key: marshall(cardKey(runId)),
            UpdateExpression: 'ADD ratings :one, #version :one',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeNames: { '#version': 'version' },
            ExpressionAttributeValues: marshall({ ':one': 1 }),
            ReturnValues: 'ALL_NEW',
          }),
        ),
      );
      return answer === null ? 0 : cardOf(unmarshall(answer.Attributes ?? {})).ratings;
    },

    async reservePost(appId, channelId, nowMs, intervalMs) {
      const item = channelItem(appId, channelId, nowMs + intervalMs, nowMs);
      const free = await conditional(() =>
        client.send(
          new PutItemCommand({
            TableName: tableName,
            Item: marshall(item),
            ConditionExpression: 'attribute_not_exists(pk) OR next_post_at <= :now',
            ExpressionAttributeValues: marshall({ ':now': nowMs }),
          }),
        ),
      );
      if (free !== null) return nowMs;
      // The channel's next slot is taken: this post takes the one after the last reserved.
      const answer = await client.send(
        new UpdateItemCommand({
          TableName: tableName,
          Key: marshall(channelKey(appId, channelId)),
          UpdateExpression: 'ADD next_post_at :interval SET #ttl = :ttl',
          ExpressionAttributeNames: { '#ttl': 'ttl' },
          ExpressionAttributeValues: marshall({ ':interval': intervalMs, ':ttl': ttlFor(nowMs, 1) }),
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return Math.max(nowMs, Number(answer.Attributes?.next_post_at?.N ?? nowMs + intervalMs) - intervalMs);
    },

    async claimOnce(key, nowMs, expiresAt) {
      const put = await conditional(() =>
        client.send(
          new PutItemCommand({
            TableName: tableName,
            Item: marshall(claimItem(key, expiresAt)),
            ConditionExpression: 'attribute_not_exists(pk) OR #ttl < :now',
            ExpressionAttributeNames: { '#ttl': 'ttl' },
            ExpressionAttributeValues: marshall({ ':now': Math.floor(nowMs / 1_000) }),
          }),
        ),
      );
      return put !== null;
    },
  };
}
