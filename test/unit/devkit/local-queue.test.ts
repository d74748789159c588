import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLocalQueue, LocalQueueFullError } from '../../../packages/devkit/src/local-queue.ts';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** A subscribed function that records each event and fails the bodies in `failing`. */
function recorder(failing: ReadonlySet<string> = new Set()) {
  const events: SQSEvent[] = [];
  const deliver = async (event: SQSEvent): Promise<SQSBatchResponse> => {
    events.push(event);
    return {
      batchItemFailures: event.Records.filter((record) => failing.has(record.body)).map((record) => ({
        itemIdentifier: record.messageId,
      })),
    };
  };
  const bodies = () => events.map((event) => event.Records.map((record) => record.body));
  return { events, deliver, bodies };
}

describe('createLocalQueue', () => {
  it('delivers messages as SQS events in batches of at most batchSize, in order', async () => {
    const { deliver, bodies, events } = recorder();
    const queue = createLocalQueue({ name: 'Work', deliver, batchSize: 2 });
    for (const body of ['a', 'b', 'c']) queue.send(body);
    await queue.idle();
    expect(bodies().flat()).toEqual(['a', 'b', 'c']);
    expect(bodies().every((batch) => batch.length <= 2)).toBe(true);
    expect(events[0]?.Records[0]).toMatchObject({
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:local:000000000000:Work',
      attributes: { ApproximateReceiveCount: '1' },
    });
  });

  it('holds a delayed message until its delay has passed (at most 900 s)', async () => {
    const { deliver, bodies } = recorder();
    const queue = createLocalQueue({ name: 'Work', deliver });
    queue.send('later', 30);
    queue.send('capped', 5_000);
    await queue.idle();
    expect(bodies()).toEqual([]);
    await vi.advanceTimersByTimeAsync(30_000);
    await queue.idle();
    expect(bodies()).toEqual([['later']]);
    await vi.advanceTimersByTimeAsync(870_000);
    await queue.idle();
    expect(bodies()).toEqual([['later'], ['capped']]);
  });

  it('delivers a failed message again after the visibility timeout, then dead-letters it at maxReceives', async () => {
    const { deliver, events } = recorder(new Set(['bad']));
    const deadLetters: number[] = [];
    const queue = createLocalQueue({
      name: 'Work',
      deliver,
      visibilityTimeoutMs: 1_000,
      maxReceives: 3,
      onDeadLetter: (_, receives) => deadLetters.push(receives),
    });
    queue.send('bad');
    queue.send('good');
    await queue.idle();
    for (let step = 0; step < 5; step += 1) {
      await vi.advanceTimersByTimeAsync(1_000);
      await queue.idle();
    }
    const receives = events.flatMap((event) =>
      event.Records.filter((record) => record.body === 'bad').map(
        (record) => record.attributes.ApproximateReceiveCount,
      ),
    );
    expect(receives).toEqual(['1', '2', '3']);
    expect(events.flatMap((event) => event.Records).filter((record) => record.body === 'good')).toHaveLength(1);
    expect(deadLetters).toEqual([3]);
  });

  it('treats a batch the function threw on as failed, and reports the error', async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const queue = createLocalQueue({
      name: 'Work',
      deliver: async () => {
        calls += 1;
        throw new TypeError('boom');
      },
      visibilityTimeoutMs: 10,
      maxReceives: 2,
      onError: (error) => errors.push(error),
    });
    queue.send('x');
    await queue.idle();
    await vi.advanceTimersByTimeAsync(10);
    await queue.idle();
    expect(calls).toBe(2);
    expect(errors.map((error) => (error as Error).name)).toEqual(['TypeError', 'TypeError']);
  });

  it('refuses a message beyond maxMessages held (waiting, delayed or in flight) with LocalQueueFullError', async () => {
    const { deliver } = recorder();
    const queue = createLocalQueue({ name: 'Work', deliver, maxMessages: 2 });
    queue.send('a', 60);
    queue.send('b', 60);
    expect(() => queue.send('c')).toThrow(LocalQueueFullError);
    await queue.close();
  });

  it('delivers nothing after close: the delayed messages are dropped and counted, the batch in flight awaited', async () => {
    const { deliver, bodies } = recorder();
    const queue = createLocalQueue({ name: 'Work', deliver });
    queue.send('now');
    queue.send('later', 10);
    queue.send('much later', 900);
    expect(await queue.close()).toEqual({ dropped: 2 });
    await vi.advanceTimersByTimeAsync(900_000);
    expect(bodies()).toEqual([['now']]);
    expect(() => queue.send('after')).toThrow(LocalQueueFullError);
    expect(vi.getTimerCount()).toBe(0);
  });
});
