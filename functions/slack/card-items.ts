/**
 * The Slack app's items, on core's item conventions (`entity`, `schema_version`, `ttl`, every string made well-formed,
 * validated on the way in and out): each kind's keys, its schema and both directions. Partitions of their own, beside
 * the run's (the run's item is written by its lifecycle only):
 * - `SLACKCARD#<runId>` / `CARD` (`slack_card`): where the run's card is, what it shows, and who may call Slack for it;
 * - `SLACKMSG#<appId>#<channelId>#<ts>` / `CARD` (`slack_message`): the run a posted card is (a click, a thread);
 * - `SLACKREQ#<key>` / `CLAIM` (`slack_claim`): a request signature or an event id, claimed once until its `ttl`;
 * - `SLACKCHAN#<appId>#<channelId>` / `POSTS` (`slack_channel`): the channel's next free `chat.postMessage` slot.
 */
import { type Item, RunStoreError, SCHEMA_VERSION, ttlFor, validatedItem, wellFormed } from '@diagnosis/core/store';
import * as v from 'valibot';
import { CARD_FACES, type CardFace, type CardMessageRef, type NewSlackCard, type SlackCard } from './card-store.ts';
import { SLACK_USER_ID_PATTERN } from './slack-work.ts';

export const cardKey = (runId: string) => ({ pk: `SLACKCARD#${runId}`, sk: 'CARD' });
export const messageKey = (appId: string, channelId: string, ts: string) => ({
  pk: `SLACKMSG#${appId}#${channelId}#${ts}`,
  sk: 'CARD',
});
const claimKey = (key: string) => ({ pk: `SLACKREQ#${key}`, sk: 'CLAIM' });
export const channelKey = (appId: string, channelId: string) => ({
  pk: `SLACKCHAN#${appId}#${channelId}`,
  sk: 'POSTS',
});

/** How long a channel's post slot item is kept after its last use (housekeeping only). */
const CHANNEL_ITEM_DAYS = 1;
/** The longest subject a card keeps (the started card shows at most a section's 3,000 characters of it). */
const MAX_QUERY_CHARS = 8_000;

/** A value built by `build` on the first call, then the same one (NOTE: no schema is built at import). */
function lazily<T>(build: () => T): () => T {
  let value: T | undefined;
  return () => {
    value ??= build();
    return value;
  };
}

const count = () => v.pipe(v.number(), v.safeInteger(), v.minValue(0));
const base = (entity: string) => ({
  pk: v.string(),
  sk: v.string(),
  entity: v.literal(entity),
  // NOTE: items written before the Slack items had a version read as version 1 (the same attributes).
  schema_version: v.optional(v.literal(SCHEMA_VERSION), SCHEMA_VERSION),
  ttl: v.pipe(v.number(), v.integer()),
});

const cardItemSchema = lazily(() =>
  v.object({
    ...base('slack_card'),
    run_id: v.string(),
    app_id: v.string(),
    team_id: v.string(),
    channel_id: v.string(),
    enterprise_id: v.string(),
    session_id: v.string(),
    ts: v.optional(v.nullable(v.string()), null),
    thread_ts: v.optional(v.nullable(v.string()), null),
    query: v.pipe(v.string(), v.maxLength(MAX_QUERY_CHARS)),
    started_by: v.string(),
    // NOTE: cards written before the requester was kept read as null (the card then says "Asked in Slack").
    requester_id: v.optional(v.nullable(v.pipe(v.string(), v.regex(SLACK_USER_ID_PATTERN))), null),
    follow_up: v.boolean(),
    // NOTE: cards written before the faces were kept carry `final`: a posted card then shows STARTED or FINAL.
    face: v.optional(v.picklist(CARD_FACES)),
    final: v.optional(v.boolean()),
    face_ratings: v.optional(count(), 0),
    details_posted: v.optional(v.boolean()),
    ratings: v.optional(count(), 0),
    last_update_at: v.optional(count(), 0),
    blocked_until: v.optional(count(), 0),
    lease_until: v.optional(count(), 0),
    lease_id: v.optional(v.string(), ''),
    // NOTE: every write of a card adds one; a lease is taken only on the version it was decided from.
    version: v.optional(count(), 0),
    created_at: v.optional(v.number()),
  }),
);

const messageItemSchema = lazily(() =>
  v.object({
    ...base('slack_message'),
    run_id: v.string(),
    enterprise_id: v.string(),
    session_id: v.string(),
    app_id: v.string(),
    channel_id: v.string(),
    root_ts: v.string(),
  }),
);

const claimItemSchema = lazily(() => v.object({ ...base('slack_claim') }));
const channelItemSchema = lazily(() => v.object({ ...base('slack_channel'), next_post_at: count() }));

/** A new card's item: claimed by a lease (`leaseId` until `leaseUntil`), shown nowhere yet. */
export function newCardItem(
  card: NewSlackCard,
  lease: { id: string; until: number },
  nowMs: number,
  retentionDays: number,
): Item {
  return validatedItem(
    cardItemSchema(),
    wellFormed({
      ...cardKey(card.runId),
      entity: 'slack_card',
      schema_version: SCHEMA_VERSION,
      ttl: ttlFor(nowMs, retentionDays),
      run_id: card.runId,
      app_id: card.appId,
      team_id: card.teamId,
      channel_id: card.channelId,
      enterprise_id: card.enterpriseId,
      session_id: card.sessionId,
      thread_ts: card.threadTs,
      query: card.query.slice(0, MAX_QUERY_CHARS),
      started_by: card.startedBy,
      requester_id: card.requesterId,
      follow_up: card.followUp,
      face: 'NONE',
      face_ratings: 0,
      details_posted: false,
      ratings: 0,
      last_update_at: 0,
      blocked_until: 0,
      lease_until: lease.until,
      lease_id: lease.id,
      version: 1,
      created_at: nowMs,
    }),
    'slack_card',
  ) as Item;
}

/** The card an item holds, with the id of the lease on it (compared, never shown). */
export function cardOf(item: unknown): SlackCard & { leaseId: string } {
  const card = validatedItem(cardItemSchema(), item, 'slack_card');
  const ts = card.ts;
  const face: CardFace = card.face ?? (ts === null ? 'NONE' : card.final === true ? 'FINAL' : 'STARTED');
  return {
    runId: card.run_id,
    appId: card.app_id,
    teamId: card.team_id,
    channelId: card.channel_id,
    enterpriseId: card.enterprise_id,
    sessionId: card.session_id,
    ts,
    threadTs: card.thread_ts,
    query: card.query,
    startedBy: card.started_by,
    requesterId: card.requester_id,
    followUp: card.follow_up,
    face,
    faceRatings: card.face_ratings,
    // NOTE: a card finished before the details were tracked had them posted with its result.
    detailsPosted: card.details_posted ?? face === 'FINAL',
    ratings: card.ratings,
    lastUpdateAt: card.last_update_at,
    blockedUntil: card.blocked_until,
    leaseUntil: card.lease_until,
    leaseId: card.lease_id,
    version: card.version,
  };
}

/** The item that makes a posted card findable from its message. */
export function messageItem(card: SlackCard, ts: string, nowMs: number, retentionDays: number): Item {
  return validatedItem(
    messageItemSchema(),
    wellFormed({
      ...messageKey(card.appId, card.channelId, ts),
      entity: 'slack_message',
      schema_version: SCHEMA_VERSION,
      ttl: ttlFor(nowMs, retentionDays),
      run_id: card.runId,
      enterprise_id: card.enterpriseId,
      session_id: card.sessionId,
      app_id: card.appId,
      channel_id: card.channelId,
      root_ts: card.threadTs ?? ts,
    }),
    'slack_message',
  ) as Item;
}

export function messageRefOf(item: unknown): CardMessageRef {
  const message = validatedItem(messageItemSchema(), item, 'slack_message');
  return {
    runId: message.run_id,
    enterpriseId: message.enterprise_id,
    sessionId: message.session_id,
    appId: message.app_id,
    channelId: message.channel_id,
    rootTs: message.root_ts,
  };
}

/** A request claim, held until `expiresAt` (ms; its `ttl` rounds up to the second). */
export function claimItem(key: string, expiresAt: number): Item {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(key)) throw new RunStoreError('CORRUPT_ITEM', 'invalid claim key');
  return validatedItem(
    claimItemSchema(),
    { ...claimKey(key), entity: 'slack_claim', schema_version: SCHEMA_VERSION, ttl: Math.ceil(expiresAt / 1_000) },
    'slack_claim',
  ) as Item;
}

/** A channel's post slot item: no `chat.postMessage` in it before `nextPostAt` (ms). */
export function channelItem(appId: string, channelId: string, nextPostAt: number, nowMs: number): Item {
  return validatedItem(
    channelItemSchema(),
    {
      ...channelKey(appId, channelId),
      entity: 'slack_channel',
      schema_version: SCHEMA_VERSION,
      ttl: ttlFor(nowMs, CHANNEL_ITEM_DAYS),
      next_post_at: nextPostAt,
    },
    'slack_channel',
  ) as Item;
}

export function nextPostAtOf(item: unknown): number {
  return validatedItem(channelItemSchema(), item, 'slack_channel').next_post_at;
}
