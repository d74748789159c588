import {
  applyRatingToMemory,
  callerKeyOf,
  DiagnosisInputError,
  PAST_INCIDENT_LIMITS,
  type PastIncident,
  type PastIncidentStore,
  type RunFeedback,
  type StoredRun,
} from '@diagnosis/core';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { storedRun } from '../support/stored-run.ts';

export interface PastIncidentStoreUnderTest {
  incidents: PastIncidentStore;
  /** The raw items of an enterprise's partition, as persisted. */
  rawItems(enterpriseId: string): Promise<Record<string, unknown>[]>;
  /** Stores an item as given, unchecked (what an older version, a bug or a hand edit could have left). */
  putRawItem(item: Record<string, unknown> & { pk: string; sk: string }): Promise<void>;
  cleanup(): Promise<void>;
}

const NOW = Date.parse('2026-12-01T00:00:00.000Z');
const DAY = 86_400_000;
let counter = 0;

function incident(overrides: Partial<PastIncident> = {}): PastIncident {
  counter += 1;
  return {
    enterpriseId: 'E1001',
    runId: `run-past-${counter}`,
    occurredAt: new Date(NOW - counter * 60_000).toISOString(),
    services: ['order-service'],
    conclusion: '支付渠道 WXPAY 在 MySQL 中被停用，订单创建失败',
    rootCause: null,
    rating: 'CORRECT',
    ratedAt: new Date(NOW).toISOString(),
    expiresAt: NOW + 180 * DAY,
    ...overrides,
  };
}

function publishedRun(overrides: Partial<StoredRun> = {}): StoredRun {
  counter += 1;
  const conclusion = '支付渠道 WXPAY 被停用';
  return storedRun({
    runId: `run-rated-${counter}`,
    status: 'SUCCEEDED',
    createdAt: '2026-11-30T06:10:00.000Z',
    services: ['order-service'],
    publishedResult: {
      draft: {
        conclusion,
        analysis: [],
        action_plan: [],
        recommendations: [],
        limitations: { checked_scope: [], missing_info: [] },
      },
      citations: [],
    },
    ...overrides,
  });
}

function rating(run: StoredRun, verdict: RunFeedback['verdict'], rootCause: string | null = null): RunFeedback {
  return {
    runId: run.runId,
    enterpriseId: run.enterpriseId,
    caller: 'arn:aws:sts::111122223333:assumed-role/OpsE1001/alice',
    callerKey: callerKeyOf('arn:aws:sts::111122223333:assumed-role/OpsE1001/alice'),
    sequence: 1,
    verdict,
    rootCause,
    note: null,
    createdAt: new Date(NOW).toISOString(),
  };
}

/** The PastIncidentStore port and `applyRatingToMemory` on it, against the in-memory twin and DynamoDB Local alike. */
export function describePastIncidentStoreContract(
  label: string,
  factory: () => Promise<PastIncidentStoreUnderTest>,
): void {
  describe(`PastIncidentStore contract (${label})`, () => {
    let subject: PastIncidentStoreUnderTest | undefined;
    const open = async () => {
      subject = await factory();
      return subject;
    };
    afterEach(async () => {
      await subject?.cleanup();
      subject = undefined;
    });

    it('returns the newest memories first, within the window, and never an expired one', async () => {
      const { incidents } = await open();
      const older = incident({ occurredAt: '2026-11-01T00:00:00.000Z' });
      const newer = incident({ occurredAt: '2026-11-20T00:00:00.000Z' });
      const expired = incident({ occurredAt: '2026-11-25T00:00:00.000Z', expiresAt: NOW - 1 });
      for (const memory of [older, newer, expired]) expect(await incidents.remember(memory)).toBe(true);
      expect((await incidents.recent('E1001', { limit: 10, now: NOW })).map((memory) => memory.runId)).toEqual([
        newer.runId,
        older.runId,
      ]);
      expect((await incidents.recent('E1001', { limit: 1, now: NOW })).map((memory) => memory.runId)).toEqual([]);
      expect(await incidents.get('E1001', expired.runId, NOW)).toBeNull();
      expect(await incidents.get('E1001', newer.runId, NOW)).toEqual(newer);
    });

    it('keeps a retraction for good: a retracted memory is never returned, and a later rating cannot bring it back', async () => {
      const { incidents, rawItems } = await open();
      const memory = incident();
      await incidents.remember(memory);
      expect(await incidents.retract('E1001', memory.runId, 'RATED_WRONG', memory.ratedAt)).toBe(true);
      expect(await incidents.retract('E1001', memory.runId, 'FORGOTTEN', memory.ratedAt)).toBe(false);
      expect(await incidents.remember({ ...memory, rating: 'CORRECT' })).toBe(false);
      expect(await incidents.recent('E1001', { limit: 50, now: NOW })).toEqual([]);
      expect(await incidents.get('E1001', memory.runId, NOW)).toBeNull();
      expect((await incidents.list('E1001', { now: NOW })).incidents).toEqual([]);
      const raw = await rawItems('E1001');
      expect(raw.map((item) => [item.sk, item.state, item.reason])).toEqual([
        [`RUN#${memory.runId}`, 'RETRACTED', 'RATED_WRONG'],
      ]);
    });

    it('refuses a memory of a run disowned before it was ever remembered', async () => {
      const { incidents } = await open();
      const memory = incident();
      expect(await incidents.retract('E1001', memory.runId, 'RATED_UNHELPFUL', memory.ratedAt)).toBe(false);
      expect(await incidents.remember(memory)).toBe(false);
      expect(await incidents.recent('E1001', { limit: 50, now: NOW })).toEqual([]);
    });

    it('writes nothing when a forget names a run the enterprise never remembered', async () => {
      const { incidents, rawItems } = await open();
      const kept = incident();
      await incidents.remember(kept);
      const before = await rawItems('E1001');
      for (let made = 0; made < 3; made += 1) {
        expect(await incidents.retract('E1001', `made-up-${counter}-${made}`, 'FORGOTTEN', kept.ratedAt)).toBe(false);
      }
      expect(await incidents.retract('E2002', kept.runId, 'FORGOTTEN', kept.ratedAt)).toBe(false);
      expect(await rawItems('E1001')).toEqual(before);
      expect(await rawItems('E2002')).toEqual([]);
      // A forget of a remembered run still leaves its tombstone, so a later rating cannot bring it back.
      expect(await incidents.retract('E1001', kept.runId, 'FORGOTTEN', kept.ratedAt)).toBe(true);
      expect(await incidents.remember(kept)).toBe(false);
    });

    it('skips an unreadable item among the newest memories, tells its class and code only, and keeps the rest', async () => {
      const { incidents, rawItems, putRawItem } = await open();
      const older = incident({ occurredAt: '2026-11-01T00:00:00.000Z' });
      const newer = incident({ occurredAt: '2026-11-20T00:00:00.000Z' });
      for (const memory of [older, newer]) await incidents.remember(memory);
      const stored = (await rawItems('E1001')).find((item) => item.run_id === newer.runId);
      const canary = 'canary-unreadable-conclusion';
      // Between the two by its key: a memory whose conclusion outgrew its bound, and one of another partition.
      for (const [at, overrides] of [
        ['2026-11-10T00:00:00.000Z', { conclusion: `${canary}${'x'.repeat(PAST_INCIDENT_LIMITS.conclusionChars)}` }],
        ['2026-11-11T00:00:00.000Z', { enterprise_id: 'E2002', conclusion: canary }],
      ] as const) {
        const runId = `run-unreadable-${at.slice(8, 10)}`;
        await putRawItem({
          ...stored,
          ...overrides,
          pk: 'PAST#E1001',
          sk: `AT#${at}#${runId}`,
          run_id: runId,
          occurred_at: at,
        });
      }
      const notices: unknown[][] = [];
      const onUnreadable = (...notice: unknown[]) => notices.push(notice);
      const recent = await incidents.recent('E1001', { limit: 50, now: NOW, onUnreadable });
      expect(recent.map((memory) => memory.runId)).toEqual([newer.runId, older.runId]);
      const listed = await incidents.list('E1001', { limit: 50, now: NOW, onUnreadable });
      expect(listed.incidents.map((memory) => memory.runId)).toEqual([newer.runId, older.runId]);
      expect(notices).toEqual(Array.from({ length: 4 }, () => ['RunStoreError', 'CORRUPT_ITEM']));
      expect(JSON.stringify(notices)).not.toContain(canary);
      // Without a listener the read still skips it.
      expect(await incidents.recent('E1001', { limit: 50, now: NOW })).toHaveLength(2);
    });

    it('replaces a memory with its newer rating and keeps one item for the run', async () => {
      const { incidents, rawItems } = await open();
      const memory = incident();
      await incidents.remember(memory);
      await incidents.remember({ ...memory, rating: 'PARTIALLY_CORRECT', rootCause: '渠道配置被回滚' });
      expect(await incidents.recent('E1001', { limit: 50, now: NOW })).toEqual([
        { ...memory, rating: 'PARTIALLY_CORRECT', rootCause: '渠道配置被回滚' },
      ]);
      expect((await rawItems('E1001')).filter((item) => item.entity === 'past_incident')).toHaveLength(1);
    });

    it('expires the items with DynamoDB TTL at the memory expiry', async () => {
      const { incidents, rawItems } = await open();
      const memory = incident({ expiresAt: NOW + 10 * DAY });
      await incidents.remember(memory);
      const stored = (await rawItems('E1001')).find((item) => item.entity === 'past_incident');
      expect(stored?.ttl).toBe(Math.ceil((NOW + 10 * DAY) / 1_000));
    });

    it('pages a listing newest first with an opaque cursor, and refuses a forged one', async () => {
      const { incidents } = await open();
      const memories = Array.from({ length: 5 }, () => incident());
      for (const memory of memories) await incidents.remember(memory);
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 5; page += 1) {
        const result = await incidents.list('E1001', {
          limit: 2,
          now: NOW,
          ...(cursor === undefined ? {} : { cursor }),
        });
        seen.push(...result.incidents.map((memory) => memory.runId));
        if (result.cursor === null) break;
        cursor = result.cursor;
      }
      expect(seen).toEqual(memories.map((memory) => memory.runId));
      const forged = Buffer.from('RUN#x', 'utf8').toString('base64url');
      await expect(incidents.list('E1001', { cursor: forged, now: NOW })).rejects.toMatchObject({
        code: 'INVALID_CURSOR',
      });
      await expect(incidents.list('E1001', { cursor: forged, now: NOW })).rejects.toBeInstanceOf(DiagnosisInputError);
    });

    it('makes a rated published run a memory, retracts it on WRONG, and ignores a run that concluded nothing', async () => {
      const { incidents } = await open();
      const deps = { incidents, retentionDays: 180 };
      const run = publishedRun();
      // The run's texts as the rating's masking hands them on (nothing in them to mask here).
      const texts = { conclusion: '支付渠道 WXPAY 被停用', services: ['order-service'] };
      expect(
        await applyRatingToMemory(run, rating(run, 'PARTIALLY_CORRECT', '渠道被误停\n于 14:05'), deps, texts),
      ).toBe('REMEMBERED');
      expect(await incidents.get('E1001', run.runId, NOW)).toEqual({
        enterpriseId: 'E1001',
        runId: run.runId,
        occurredAt: run.createdAt,
        services: ['order-service'],
        conclusion: '支付渠道 WXPAY 被停用',
        rootCause: '渠道被误停 于 14:05',
        rating: 'PARTIALLY_CORRECT',
        ratedAt: new Date(NOW).toISOString(),
        expiresAt: NOW + 180 * DAY,
      });
      expect(await applyRatingToMemory(run, rating(run, 'WRONG'), deps, texts)).toBe('RETRACTED');
      expect(await applyRatingToMemory(run, rating(run, 'CORRECT'), deps, texts)).toBe('ALREADY_RETRACTED');
      expect(await incidents.get('E1001', run.runId, NOW)).toBeNull();
      const fallback = publishedRun({ status: 'FALLBACK', publishedResult: null });
      expect(
        await applyRatingToMemory(fallback, rating(fallback, 'CORRECT'), deps, { conclusion: null, services: [] }),
      ).toBe('NOT_ELIGIBLE');
    });

    it('never returns, lists, counts or reveals one enterprise’s memory to another (fast-check, fixed seed)', async () => {
      const { incidents } = await open();
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.record({ enterprise: fc.constantFrom('E1001', 'E2002', 'E3003'), forget: fc.boolean() }), {
            minLength: 1,
            maxLength: 8,
          }),
          async (operations) => {
            const written: PastIncident[] = [];
            for (const { enterprise, forget } of operations) {
              const memory = incident({ enterpriseId: enterprise, conclusion: `canary-${enterprise}-${counter}` });
              await incidents.remember(memory);
              if (forget) await incidents.retract(enterprise, memory.runId, 'FORGOTTEN', memory.ratedAt);
              else written.push(memory);
            }
            for (const reader of ['E1001', 'E2002', 'E3003', 'E4004']) {
              const recent = await incidents.recent(reader, { limit: 50, now: NOW });
              const listed = await incidents.list(reader, { limit: 50, now: NOW });
              for (const memory of [...recent, ...listed.incidents]) {
                expect(memory.enterpriseId).toBe(reader);
                expect(memory.conclusion.startsWith(`canary-${reader}-`)).toBe(true);
              }
              for (const memory of written.filter((entry) => entry.enterpriseId !== reader)) {
                expect(await incidents.get(reader, memory.runId, NOW)).toBeNull();
                expect(await incidents.retract(reader, memory.runId, 'FORGOTTEN', memory.ratedAt)).toBe(false);
              }
            }
            // The other enterprises' memories are still there: a reader's forget of a foreign run changed nothing.
            for (const memory of written) {
              expect(await incidents.get(memory.enterpriseId, memory.runId, NOW)).toEqual(memory);
            }
          },
        ),
        { seed: 35, numRuns: 12 },
      );
    });
  });
}
