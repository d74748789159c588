import {
  callerKeyOf,
  DEVELOPMENT_MASKING_SECRET,
  DiagnosisInputError,
  FEEDBACK_LIMITS,
  type FeedbackMasking,
  type FeedbackStore,
  feedbackView,
  type RunFeedback,
  recordFeedback,
  type StoredRun,
} from '@diagnosis/core';
import { createMemoryRunStore } from '@diagnosis/core/store';
import { afterEach, describe, expect, it } from 'vitest';
import { storedRun } from '../support/stored-run.ts';

export interface FeedbackStoreUnderTest {
  feedback: FeedbackStore;
  /** The raw items of a run's feedback partition, as persisted. */
  rawItems(runId: string): Promise<Record<string, unknown>[]>;
  cleanup(): Promise<void>;
}

const ALICE = 'arn:aws:sts::111122223333:assumed-role/OpsE1001/alice';
const BOB = 'arn:aws:sts::111122223333:assumed-role/OpsE1001/bob';
let counter = 0;
/** The runs' masking: these ratings hold no identifier, so it changes none of them. */
const masking = (): FeedbackMasking => ({
  secret: DEVELOPMENT_MASKING_SECRET,
  mode: 'identifiers',
  pseudonyms: createMemoryRunStore(),
});

function endedRun(overrides: Partial<StoredRun> = {}): StoredRun {
  counter += 1;
  return storedRun({
    runId: `run-feedback-${Date.now().toString(36)}-${counter}`,
    status: 'SUCCEEDED',
    createdAt: '2026-11-30T06:10:00.000Z',
    endedAt: '2026-11-30T06:11:00.000Z',
    ...overrides,
  });
}

function entry(run: StoredRun, caller: string, sequence: number): RunFeedback {
  return {
    runId: run.runId,
    enterpriseId: run.enterpriseId,
    caller,
    callerKey: callerKeyOf(caller),
    sequence,
    verdict: 'WRONG',
    rootCause: null,
    note: null,
    createdAt: '2026-11-30T07:00:00.000Z',
  };
}

/** The FeedbackStore port and `recordFeedback` on it, run against the in-memory twin and DynamoDB Local alike. */
export function describeFeedbackStoreContract(label: string, factory: () => Promise<FeedbackStoreUnderTest>): void {
  describe(`FeedbackStore contract (${label})`, () => {
    let subject: FeedbackStoreUnderTest | undefined;
    const open = async () => {
      subject = await factory();
      return subject;
    };
    afterEach(async () => {
      await subject?.cleanup();
      subject = undefined;
    });

    it('never overwrites an entry: a second put of the same caller and sequence is refused', async () => {
      const { feedback } = await open();
      const run = endedRun();
      expect(await feedback.putFeedback(entry(run, ALICE, 1), run.createdAt)).toBe(true);
      expect(await feedback.putFeedback({ ...entry(run, ALICE, 1), verdict: 'CORRECT' }, run.createdAt)).toBe(false);
      expect(await feedback.listFeedback(run.runId)).toEqual([entry(run, ALICE, 1)]);
    });

    it("lists one caller's entries by sequence and nobody else's, and expires them with their run", async () => {
      const { feedback, rawItems } = await open();
      const run = endedRun();
      const other = endedRun();
      for (const [caller, sequence] of [
        [ALICE, 2],
        [BOB, 1],
        [ALICE, 1],
      ] as const) {
        await feedback.putFeedback(entry(run, caller, sequence), run.createdAt);
      }
      await feedback.putFeedback(entry(other, ALICE, 1), other.createdAt);
      const alice = await feedback.listCallerFeedback(run.runId, callerKeyOf(ALICE));
      expect(alice.map((item) => [item.caller, item.sequence])).toEqual([
        [ALICE, 1],
        [ALICE, 2],
      ]);
      expect(await feedback.listFeedback(run.runId)).toHaveLength(3);
      const ttl = Math.floor(Date.parse(run.createdAt) / 1_000) + 90 * 86_400;
      expect((await rawItems(run.runId)).map((item) => [item.pk, item.ttl])).toEqual(
        Array.from({ length: 3 }, () => [`FEEDBACK#${run.runId}`, ttl]),
      );
    });

    it('records a verdict once per caller: the same rating again is that rating, and nothing is written', async () => {
      const { feedback, rawItems } = await open();
      const run = endedRun();
      const input = { verdict: 'WRONG' as const, rootCause: '连接池被调小', note: null };
      const first = await recordFeedback({ run, caller: ALICE, input }, { feedback, masking: masking(), now: () => 1 });
      const again = await recordFeedback({ run, caller: ALICE, input }, { feedback, masking: masking(), now: () => 2 });
      expect(first).toMatchObject({ created: true, entry: { sequence: 1, verdict: 'WRONG', caller: ALICE } });
      // Without the enterprise's memory in its deps, a rating changes none, and says so.
      expect(again).toEqual({ created: false, entry: first.entry, memory: null });
      expect(await rawItems(run.runId)).toHaveLength(1);
    });

    it('keeps the history of a re-rating, and a return to an earlier verdict is a new entry', async () => {
      const { feedback } = await open();
      const run = endedRun();
      const rate = (verdict: RunFeedback['verdict']) =>
        recordFeedback(
          { run, caller: ALICE, input: { verdict, rootCause: null, note: null } },
          { feedback, masking: masking() },
        );
      await rate('CORRECT');
      await rate('WRONG');
      const back = await rate('CORRECT');
      await recordFeedback(
        { run, caller: BOB, input: { verdict: 'UNHELPFUL', rootCause: null, note: 'x' } },
        { feedback, masking: masking() },
      );
      expect(back).toMatchObject({ created: true, entry: { sequence: 3 } });
      const all = await feedback.listFeedback(run.runId);
      expect(all.filter((item) => item.caller === ALICE).map((item) => item.verdict)).toEqual([
        'CORRECT',
        'WRONG',
        'CORRECT',
      ]);
      expect(all.filter((item) => item.caller === BOB)).toHaveLength(1);
    });

    it('gives concurrent different ratings of one caller distinct entries (none overwritten)', async () => {
      const { feedback } = await open();
      const run = endedRun();
      const verdicts = ['CORRECT', 'WRONG', 'UNHELPFUL'] as const;
      const results = await Promise.allSettled(
        verdicts.map((verdict) =>
          recordFeedback(
            { run, caller: ALICE, input: { verdict, rootCause: null, note: null } },
            { feedback, masking: masking() },
          ),
        ),
      );
      const stored = await feedback.listCallerFeedback(run.runId, callerKeyOf(ALICE));
      expect(stored.map((item) => item.sequence)).toEqual(stored.map((_, index) => index + 1));
      const created = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value.entry] : []));
      expect(stored).toEqual(expect.arrayContaining(created));
      for (const result of results) {
        if (result.status === 'rejected') expect(result.reason).toMatchObject({ code: 'FEEDBACK_CONFLICT' });
      }
    });

    it(`stops a caller at ${FEEDBACK_LIMITS.ratingsPerCaller} ratings of one run`, async () => {
      const { feedback } = await open();
      const run = endedRun();
      for (let sequence = 1; sequence <= FEEDBACK_LIMITS.ratingsPerCaller; sequence += 1) {
        await feedback.putFeedback(entry(run, ALICE, sequence), run.createdAt);
      }
      const more = recordFeedback(
        { run, caller: ALICE, input: { verdict: 'CORRECT', rootCause: null, note: null } },
        { feedback, masking: masking() },
      );
      await expect(more).rejects.toMatchObject({ code: 'FEEDBACK_LIMIT' });
      await expect(feedback.listFeedback(run.runId)).resolves.toHaveLength(FEEDBACK_LIMITS.ratingsPerCaller);
    });

    // The first-rating bound counted re-ratings, and the listing read 120 entries of a run
    // that may hold 2,000 (so a caller's newest could be cut off and an older one shown as current).
    it('counts first ratings by caller: re-ratings never lock other responders out', async () => {
      const { feedback } = await open();
      const run = endedRun();
      const callers = Array.from({ length: 6 }, (_, index) => `${ALICE}-${index}`);
      for (const caller of callers) {
        for (let sequence = 1; sequence <= FEEDBACK_LIMITS.ratingsPerCaller; sequence += 1) {
          await feedback.putFeedback(entry(run, caller, sequence), run.createdAt);
        }
      }
      // 120 entries of 6 callers: a seventh responder's first rating is the run's seventh, far within the bound.
      const seventh = await recordFeedback(
        { run, caller: BOB, input: { verdict: 'CORRECT', rootCause: null, note: null } },
        { feedback, masking: masking() },
      );
      expect(seventh).toMatchObject({ created: true, entry: { sequence: 1 } });
      const listed = await feedback.listFeedback(run.runId);
      expect(listed).toHaveLength(6 * FEEDBACK_LIMITS.ratingsPerCaller + 1);
      const current = new Map(
        feedbackView(listed)
          .filter((rating) => rating.current)
          .map((r) => [r.caller, r.sequence]),
      );
      for (const caller of callers) expect(current.get(caller)).toBe(FEEDBACK_LIMITS.ratingsPerCaller);
      expect(current.get(BOB)).toBe(1);
    });

    it(`refuses the first rating of a caller past ${FEEDBACK_LIMITS.entriesPerRun} callers, not a re-rating`, async () => {
      const { feedback } = await open();
      const run = endedRun();
      for (let index = 0; index < FEEDBACK_LIMITS.entriesPerRun; index += 1) {
        await feedback.putFeedback(entry(run, `${ALICE}-${index}`, 1), run.createdAt);
      }
      const newcomer = recordFeedback(
        { run, caller: BOB, input: { verdict: 'CORRECT', rootCause: null, note: null } },
        { feedback, masking: masking() },
      );
      await expect(newcomer).rejects.toMatchObject({ code: 'FEEDBACK_LIMIT' });
      const rerating = await recordFeedback(
        { run, caller: `${ALICE}-0`, input: { verdict: 'UNHELPFUL', rootCause: null, note: 'a second look' } },
        { feedback, masking: masking() },
      );
      expect(rerating).toMatchObject({ created: true, entry: { sequence: 2 } });
    });

    it('refuses a rating of a run that has not ended, and writes nothing', async () => {
      const { feedback, rawItems } = await open();
      const run = endedRun({ status: 'RUNNING', endedAt: null });
      const rating = recordFeedback(
        { run, caller: ALICE, input: { verdict: 'CORRECT', rootCause: null, note: null } },
        { feedback, masking: masking() },
      );
      await expect(rating).rejects.toBeInstanceOf(DiagnosisInputError);
      await expect(rating).rejects.toMatchObject({ code: 'RUN_NOT_ENDED' });
      expect(await rawItems(run.runId)).toEqual([]);
    });
  });
}
