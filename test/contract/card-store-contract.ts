import { describe, expect, it } from 'vitest';
import { CardLeaseLostError, type CardStore, type NewSlackCard } from '../../functions/slack/card-store.ts';

const T0 = Date.parse('2026-12-03T02:00:00.000Z');
const LEASE = 15_000;
const INTERVAL = 5_000;

/** A store under test and the raw item it keeps at a key (for the item conventions). */
export interface CardStoreUnderTest {
  store: CardStore;
  rawItem(key: { pk: string; sk: string }): Promise<Record<string, unknown> | undefined>;
}

/** The contract of `CardStore`, run against the in-memory twin and the DynamoDB adapter alike. */
export function describeCardStoreContract(
  name: string,
  create: (options?: { retentionDays?: number }) => Promise<CardStoreUnderTest>,
) {
  describe(`CardStore contract (${name})`, () => {
    let count = 0;
    const newCard = (over: Partial<NewSlackCard> = {}): NewSlackCard => {
      count += 1;
      return {
        runId: `run-${name.replace(/\W/g, '')}-${count}`,
        appId: 'e1001',
        teamId: 'T0E1001AA',
        channelId: 'C0E1001AA',
        enterpriseId: 'E1001',
        sessionId: `session-${count}`,
        threadTs: null,
        query: 'E1001-payment-5xx',
        startedBy: 'cloudwatch',
        requesterId: null,
        followUp: false,
        ...over,
      };
    };

    /** A card claimed and posted at T0 (its lease ended). */
    async function posted(store: CardStore, over: Partial<NewSlackCard> = {}) {
      const card = newCard(over);
      const lease = await store.claimCard(card, T0, LEASE);
      if (lease === null) throw new Error('not claimed');
      await store.recordPosted(lease, '1796000000.000100', T0);
      const stored = await store.getCard(card.runId);
      if (stored === null) throw new Error('no card');
      return stored;
    }

    it('claims a card once, its post lease held, nothing shown', async () => {
      const { store } = await create();
      const card = newCard();
      const lease = await store.claimCard(card, T0, LEASE);
      expect(lease).toMatchObject({ runId: card.runId, until: T0 + LEASE });
      expect(lease?.card).toMatchObject({ ts: null, face: 'NONE', leaseUntil: T0 + LEASE, ratings: 0 });
      expect(await store.claimCard(card, T0 + 1, LEASE)).toBeNull();
      expect(await store.getCard(card.runId)).toMatchObject({ ...card, ts: null, face: 'NONE' });
      expect(await store.getCard('run-never-claimed')).toBeNull();
    });

    it('lets no one take a lease while it is held, and anyone once it ran out', async () => {
      const { store } = await create();
      const card = newCard();
      await store.claimCard(card, T0, LEASE);
      const held = await store.getCard(card.runId);
      if (held === null) throw new Error('no card');
      expect(await store.takeLease(held, 'post', T0 + LEASE - 1, LEASE, 0)).toBeNull();
      const taken = await store.takeLease(held, 'post', T0 + LEASE, LEASE, 0);
      expect(taken?.until).toBe(T0 + 2 * LEASE);
      // The card it was decided from is no longer the stored one: a second taker is refused.
      expect(await store.takeLease(held, 'post', T0 + 3 * LEASE, LEASE, 0)).toBeNull();
    });

    it('records a post: the ts, the started face, the message findable, the lease ended', async () => {
      const { store } = await create();
      const stored = await posted(store, { threadTs: '1795999999.000001', followUp: true });
      expect(stored).toMatchObject({ ts: '1796000000.000100', face: 'STARTED', leaseUntil: 0, lastUpdateAt: T0 });
      expect(await store.findByMessage('e1001', 'C0E1001AA', '1796000000.000100')).toEqual({
        runId: stored.runId,
        enterpriseId: 'E1001',
        sessionId: stored.sessionId,
        appId: 'e1001',
        channelId: 'C0E1001AA',
        rootTs: '1795999999.000001',
      });
      expect(await store.findByMessage('e1001', 'C0OTHER01', '1796000000.000100')).toBeNull();
      expect(await store.findByMessage('e2002', 'C0E1001AA', '1796000000.000100')).toBeNull();
      expect(await store.takeLease(stored, 'post', T0 + 1, LEASE, 0)).toBeNull();
    });

    it('takes a progress lease once per interval and never on a result, writing nothing when it may not', async () => {
      const { store } = await create();
      const stored = await posted(store);
      expect(await store.takeLease(stored, 'progress', T0 + INTERVAL - 1, LEASE, INTERVAL)).toBeNull();
      expect((await store.getCard(stored.runId))?.version).toBe(stored.version);
      const lease = await store.takeLease(stored, 'progress', T0 + INTERVAL, LEASE, INTERVAL);
      if (lease === null) throw new Error('no progress lease');
      await store.recordDrawn(lease, 'PROGRESS', 0, false);
      const drawn = await store.getCard(stored.runId);
      expect(drawn).toMatchObject({ face: 'PROGRESS', leaseUntil: 0, lastUpdateAt: T0 + INTERVAL });
      if (drawn === null) throw new Error('no card');
      const result = await store.takeLease(drawn, 'result', T0 + INTERVAL + 1, LEASE, 0);
      if (result === null) throw new Error('no result lease');
      await store.recordDrawn(result, 'FINAL', 0, true);
      await store.recordDetailsPosted(result);
      const final = await store.getCard(stored.runId);
      if (final === null) throw new Error('no card');
      expect(final).toMatchObject({ face: 'FINAL', detailsPosted: true, leaseUntil: 0 });
      expect(await store.takeLease(final, 'progress', T0 + 60_000, LEASE, INTERVAL)).toBeNull();
      expect(await store.takeLease(final, 'result', T0 + 60_000, LEASE, 0)).toBeNull();
    });

    it('makes the result pending again with each rating, the count returned', async () => {
      const { store } = await create();
      const stored = await posted(store);
      const result = await store.takeLease(stored, 'result', T0 + 1, LEASE, 0);
      if (result === null) throw new Error('no result lease');
      await store.recordDrawn(result, 'FINAL', 0, true);
      await store.recordDetailsPosted(result);
      expect(await store.addRating(stored.runId)).toBe(1);
      expect(await store.addRating(stored.runId)).toBe(2);
      expect(await store.addRating('run-without-card')).toBe(0);
      const rated = await store.getCard(stored.runId);
      if (rated === null) throw new Error('no card');
      expect(rated).toMatchObject({ ratings: 2, faceRatings: 0 });
      const redraw = await store.takeLease(rated, 'result', T0 + 2, LEASE, 0);
      if (redraw === null) throw new Error('no redraw lease');
      expect(redraw.card.ratings).toBe(2);
      await store.recordDrawn(redraw, 'FINAL', 2, false);
      const shown = await store.getCard(stored.runId);
      if (shown === null) throw new Error('no card');
      expect(await store.takeLease(shown, 'result', T0 + 3, LEASE, 0)).toBeNull();
    });

    it('blocks every lease until a 429 ran out, and refuses a lease that ended anyone’s records', async () => {
      const { store } = await create();
      const stored = await posted(store);
      const lease = await store.takeLease(stored, 'result', T0 + 1, LEASE, 0);
      if (lease === null) throw new Error('no lease');
      await store.releaseLease(lease, T0 + 30_000);
      const blocked = await store.getCard(stored.runId);
      if (blocked === null) throw new Error('no card');
      expect(blocked).toMatchObject({ blockedUntil: T0 + 30_000, leaseUntil: 0, face: 'STARTED' });
      expect(await store.takeLease(blocked, 'result', T0 + 29_999, LEASE, 0)).toBeNull();
      await expect(store.recordDrawn(lease, 'FINAL', 0, false)).rejects.toThrow(CardLeaseLostError);
      await store.releaseLease(lease);
      expect((await store.getCard(stored.runId))?.blockedUntil).toBe(T0 + 30_000);
      expect(await store.takeLease(blocked, 'result', T0 + 30_000, LEASE, 0)).not.toBeNull();
    });

    it("reserves a channel's post slots one interval apart, and now again once the channel is quiet", async () => {
      const { store } = await create();
      expect(await store.reservePost('e1001', 'C0SLOTS01', T0, 1_000)).toBe(T0);
      expect(await store.reservePost('e1001', 'C0SLOTS01', T0 + 10, 1_000)).toBe(T0 + 1_000);
      expect(await store.reservePost('e1001', 'C0SLOTS01', T0 + 20, 1_000)).toBe(T0 + 2_000);
      expect(await store.reservePost('e1001', 'C0SLOTS02', T0 + 20, 1_000)).toBe(T0 + 20);
      expect(await store.reservePost('e2002', 'C0SLOTS01', T0 + 20, 1_000)).toBe(T0 + 20);
      expect(await store.reservePost('e1001', 'C0SLOTS01', T0 + 60_000, 1_000)).toBe(T0 + 60_000);
    });

    it('claims a request key once until it expires', async () => {
      const { store } = await create();
      expect(await store.claimOnce('sig-abc_DEF-1', T0, T0 + 360_000)).toBe(true);
      expect(await store.claimOnce('sig-abc_DEF-1', T0 + 1_000, T0 + 361_000)).toBe(false);
      expect(await store.claimOnce('sig-abc_DEF-2', T0 + 1_000, T0 + 361_000)).toBe(true);
      expect(await store.claimOnce('sig-abc_DEF-1', T0 + 362_000, T0 + 722_000)).toBe(true);
    });

    it('writes each kind on the item conventions: entity, schema version, ttl, well-formed text', async () => {
      const { store, rawItem } = await create();
      const stored = await posted(store, { query: 'alarm \ud800 text' });
      expect(stored.query).toBe('alarm \ufffd text');
      const items = {
        slack_card: await rawItem({ pk: `SLACKCARD#${stored.runId}`, sk: 'CARD' }),
        slack_message: await rawItem({ pk: 'SLACKMSG#e1001#C0E1001AA#1796000000.000100', sk: 'CARD' }),
      };
      await store.claimOnce('conventions', T0, T0 + 360_000);
      await store.reservePost('e1001', 'C0CONVENT1', T0, 1_000);
      const claim = await rawItem({ pk: 'SLACKREQ#conventions', sk: 'CLAIM' });
      const channel = await rawItem({ pk: 'SLACKCHAN#e1001#C0CONVENT1', sk: 'POSTS' });
      const retention = Math.floor(T0 / 1_000) + 90 * 86_400;
      expect(items.slack_card).toMatchObject({ entity: 'slack_card', schema_version: 1, ttl: retention });
      expect(items.slack_message).toMatchObject({ entity: 'slack_message', schema_version: 1, ttl: retention });
      expect(claim).toMatchObject({ entity: 'slack_claim', schema_version: 1, ttl: Math.ceil((T0 + 360_000) / 1_000) });
      expect(channel).toMatchObject({ entity: 'slack_channel', schema_version: 1, next_post_at: T0 + 1_000 });
    });

    it('keeps a card and its message item RETENTION_DAYS, as the run they show', async () => {
      const { store, rawItem } = await create({ retentionDays: 7 });
      const stored = await posted(store);
      const kept = Math.floor(T0 / 1_000) + 7 * 86_400;
      expect(await rawItem({ pk: `SLACKCARD#${stored.runId}`, sk: 'CARD' })).toMatchObject({ ttl: kept });
      expect(await rawItem({ pk: 'SLACKMSG#e1001#C0E1001AA#1796000000.000100', sk: 'CARD' })).toMatchObject({
        ttl: kept,
      });
    });
  });
}
