/**
 * The in-memory twin of `createDynamoCardStore` (tests, the local runner): the same items, built and read by the same
 * item module (`card-items.ts`), the same conditions, held to the same contract suite.
 */
import { randomUUID } from 'node:crypto';
import type { Item } from '@diagnosis/core/store';
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
  nextPostAtOf,
} from './card-items.ts';
import { type CardLease, CardLeaseLostError, type CardStore, leaseAllows } from './card-store.ts';

export type MemoryCardStore = CardStore & { readonly items: ReadonlyMap<string, Item> };

export function createMemoryCardStore(options: { retentionDays?: number } = {}): MemoryCardStore {
  const items = new Map<string, Item>();
  const retentionDays = options.retentionDays ?? 90;
  const keyOf = (key: { pk: string; sk: string }) => `${key.pk}|${key.sk}`;
  const read = (key: { pk: string; sk: string }) => {
    const item = items.get(keyOf(key));
    return item === undefined ? undefined : structuredClone(item);
  };
  const write = (item: Item) => items.set(keyOf(item), structuredClone(item));
  /** Sets `set` on the card (and one more version) when `allowed` holds for its item; the card as written. */
  const updateCard = (runId: string, set: Record<string, unknown>, allowed: (item: Item) => boolean) => {
    const item = read(cardKey(runId));
    if (item === undefined || !allowed(item)) return null;
    const next = { ...item, ...set, version: Number(item.version ?? 0) + 1 };
    cardOf(next);
    write(next);
    return cardOf(next);
  };
  const ended = { lease_until: 0, lease_id: '' };
  const onLease = (lease: CardLease, set: Record<string, unknown>) => {
    if (updateCard(lease.runId, set, (item) => item.lease_id === lease.id) === null) throw new CardLeaseLostError();
  };
  return {
    items,
    async claimCard(card, nowMs, leaseMs) {
      await Promise.resolve();
      const lease = { id: randomUUID(), until: nowMs + leaseMs };
      const item = newCardItem(card, lease, nowMs, retentionDays);
      if (items.has(keyOf(item))) return null;
      write(item);
      return { runId: card.runId, ...lease, card: cardOf(item) };
    },
    async getCard(runId) {
      const item = read(cardKey(runId));
      return item === undefined ? null : cardOf(item);
    },
    async takeLease(card, purpose, nowMs, leaseMs, minIntervalMs) {
      if (!leaseAllows(card, purpose, nowMs, minIntervalMs)) return null;
      const lease = { id: randomUUID(), until: nowMs + leaseMs };
      const taken = updateCard(
        card.runId,
        { lease_until: lease.until, lease_id: lease.id, ...(purpose === 'post' ? {} : { last_update_at: nowMs }) },
        (item) => Number(item.version ?? 0) === card.version,
      );
      return taken === null ? null : { runId: card.runId, ...lease, card: taken };
    },
    async recordPosted(lease, ts, nowMs) {
      write(messageItem(lease.card, ts, nowMs, retentionDays));
      onLease(lease, { ts, face: 'STARTED', last_update_at: nowMs, ...ended });
    },
    async recordDrawn(lease, face, ratings, keep) {
      onLease(lease, { face, face_ratings: ratings, ...(keep ? {} : ended) });
    },
    async recordDetailsPosted(lease) {
      onLease(lease, { details_posted: true, ...ended });
    },
    async releaseLease(lease, blockedUntil) {
      updateCard(
        lease.runId,
        { ...ended, ...(blockedUntil === undefined ? {} : { blocked_until: blockedUntil }) },
        (item) => item.lease_id === lease.id,
      );
    },
    async findByMessage(appId, channelId, ts) {
      const item = read(messageKey(appId, channelId, ts));
      return item === undefined ? null : messageRefOf(item);
    },
    async addRating(runId) {
      const item = read(cardKey(runId));
      if (item === undefined) return 0;
      return updateCard(runId, { ratings: Number(item.ratings ?? 0) + 1 }, () => true)?.ratings ?? 0;
    },
    async reservePost(appId, channelId, nowMs, intervalMs) {
      const item = read(channelKey(appId, channelId));
      const next = item === undefined ? nowMs : nextPostAtOf(item);
      const slot = Math.max(nowMs, next);
      write(channelItem(appId, channelId, slot + intervalMs, nowMs));
      return slot;
    },
    async claimOnce(key, nowMs, expiresAt) {
      const item = claimItem(key, expiresAt);
      const heldItem = read(item);
      if (heldItem !== undefined && Number(heldItem.ttl) >= Math.floor(nowMs / 1_000)) return false;
      write(item);
      return true;
    },
  };
}
