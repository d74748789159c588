/**
 * Result events reach the bus in calls it accepts: `PutEvents` takes at most 10 entries
 * and 256 KB a call, so ten results of 40 KB (a long query and a full Draft) were one call refused whole, on every
 * retry of the stream, until it gave up; an entry over the limit on its own can never be put.
 */
import type { PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { putEventsBatches, putEventsEntrySize } from '../../../../functions/delivery/publish-run-finished.ts';

const entryOf = (detailBytes: number, id: number) => ({
  id,
  entry: {
    EventBusName: 'bus',
    Source: 'diagnosis.agent',
    DetailType: 'Diagnosis Run Finished',
    Detail: JSON.stringify({ runId: `run-${id}`, text: 'x'.repeat(Math.max(0, detailBytes - 40)) }),
    Resources: [],
  } satisfies PutEventsRequestEntry,
});

describe('putEventsEntrySize', () => {
  it('counts what EventBridge counts: Time as 14 bytes, Source, DetailType, Detail and Resources in UTF-8', () => {
    const entry = { Source: 'ab', DetailType: 'cd', Detail: '{"a":"中"}', Resources: ['r1'], EventBusName: 'ignored' };
    expect(putEventsEntrySize(entry)).toBe(2 + 2 + 11 + 2);
    expect(putEventsEntrySize({ ...entry, Time: new Date() })).toBe(14 + 17);
  });
});

describe('putEventsBatches', () => {
  it('splits ten 40 KB results into calls of at most 256 KB', () => {
    const { batches, tooLarge } = putEventsBatches(Array.from({ length: 10 }, (_, id) => entryOf(40_000, id)));
    expect(tooLarge).toEqual([]);
    expect(batches.length).toBeGreaterThan(1);
    expect(batches.flat().map((item) => item.id)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('keeps every call within 10 entries and 256 KB, in order, and sets apart an entry over the limit (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 300_000 }), { maxLength: 40 }), (sizes) => {
        const items = sizes.map((size, id) => entryOf(size, id));
        const { batches, tooLarge } = putEventsBatches(items);
        for (const batch of batches) {
          expect(batch.length).toBeGreaterThan(0);
          expect(batch.length).toBeLessThanOrEqual(10);
          expect(batch.reduce((total, item) => total + putEventsEntrySize(item.entry), 0)).toBeLessThanOrEqual(262_144);
        }
        for (const item of tooLarge) expect(putEventsEntrySize(item.entry)).toBeGreaterThan(262_144);
        const kept = batches.flat().map((item) => item.id);
        expect([...kept, ...tooLarge.map((item) => item.id)].sort((a, b) => a - b)).toEqual(
          items.map((item) => item.id),
        );
        expect(kept).toEqual([...kept].sort((a, b) => a - b));
      }),
      { numRuns: 300 },
    );
  });
});
