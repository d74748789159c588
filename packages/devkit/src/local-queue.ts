/**
 * An SQS queue's stand-in for one process (`diagnosis serve`, `diagnosis trigger --slack`): messages are handed to
 * the subscribed function as Lambda's SQS event (batches of up to `batchSize`, one batch at a time) and read back
 * with its partial batch response, as the deployed event source mapping does. A message sent with a delay (SQS's
 * `DelaySeconds`, at most 900) waits on a timer; a message the function reported failed (or all of a batch it threw
 * on) comes back after the visibility timeout, until its `maxReceives`-th receive — then it goes to the "dead
 * letters" (`onDeadLetter`), as the deployed redrive policy sends it. Bounded: at most `maxMessages` held at once
 * (waiting, delayed or in flight); `send` refuses beyond that. `close()` delivers nothing more, clears every timer
 * (the delayed messages are dropped and counted) and waits for the batch in flight.
 */
import { randomUUID } from 'node:crypto';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';

export interface LocalQueueOptions {
  /** The queue's name, in the event's ARN. */
  name: string;
  /** The subscribed function. */
  deliver(event: SQSEvent): Promise<SQSBatchResponse | undefined>;
  batchSize?: number;
  maxMessages?: number;
  visibilityTimeoutMs?: number;
  maxReceives?: number;
  /** A message dropped after its last receive (its id and receive count; never its body). */
  onDeadLetter?(messageId: string, receives: number): void;
  /** The function threw on a batch (its class only is any caller's business). */
  onError?(error: unknown): void;
}

export interface LocalQueue {
  /** Sends a message, after `delaySeconds`; throws `LocalQueueFullError` when `maxMessages` are held. */
  send(body: string, delaySeconds?: number): void;
  /**
   * Resolves once no message is waiting or in flight, and none is delayed to within `delayedWithinMs` from now
   * (default 0: delayed ones and redeliveries are not waited for).
   */
  idle(options?: { delayedWithinMs?: number }): Promise<void>;
  /** Stops: nothing more is delivered, timers cleared; resolves with how many delayed messages were dropped. */
  close(): Promise<{ dropped: number }>;
}

/** `send` on a full queue: the caller answers as for a queue that refused the message. */
export class LocalQueueFullError extends Error {
  override name = 'LocalQueueFullError';
}

interface Message {
  messageId: string;
  body: string;
  receives: number;
  sentAt: number;
}

export function createLocalQueue(options: LocalQueueOptions): LocalQueue {
  const batchSize = options.batchSize ?? 10;
  const maxMessages = options.maxMessages ?? 100;
  const visibilityTimeoutMs = options.visibilityTimeoutMs ?? 60_000;
  const maxReceives = options.maxReceives ?? 5;
  const ready: Message[] = [];
  /** Delayed messages' timers, each with the instant it fires. */
  const timers = new Map<ReturnType<typeof setTimeout>, number>();
  /** Resolved (and replaced) each time a delayed message becomes ready. */
  let fired = Promise.withResolvers<void>();
  let inFlight = 0;
  let pumping: Promise<void> | null = null;
  let closed = false;
  const arn = `arn:aws:sqs:local:000000000000:${options.name}`;

  const later = (message: Message, delayMs: number) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      fired.resolve();
      fired = Promise.withResolvers<void>();
      ready.push(message);
      pump();
    }, delayMs);
    timers.set(timer, Date.now() + delayMs);
  };

  const deliverBatch = async (batch: Message[]) => {
    for (const message of batch) message.receives += 1;
    const event: SQSEvent = {
      Records: batch.map((message) => ({
        messageId: message.messageId,
        receiptHandle: `${message.messageId}#${message.receives}`,
        body: message.body,
        attributes: {
          ApproximateReceiveCount: String(message.receives),
          SentTimestamp: String(message.sentAt),
          SenderId: 'local',
          ApproximateFirstReceiveTimestamp: String(Date.now()),
        },
        messageAttributes: {},
        md5OfBody: '',
        eventSource: 'aws:sqs',
        eventSourceARN: arn,
        awsRegion: 'local',
      })),
    };
    let failed: ReadonlySet<string>;
    try {
      const answer = await options.deliver(event);
      failed = new Set((answer?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier));
    } catch (error) {
      options.onError?.(error);
      failed = new Set(batch.map((message) => message.messageId));
    }
    for (const message of batch) {
      if (!failed.has(message.messageId) || closed) continue;
      if (message.receives >= maxReceives) options.onDeadLetter?.(message.messageId, message.receives);
      else later(message, visibilityTimeoutMs);
    }
  };

  function pump(): void {
    if (pumping !== null || closed) return;
    pumping = (async () => {
      while (ready.length > 0 && !closed) {
        const batch = ready.splice(0, batchSize);
        inFlight = batch.length;
        await deliverBatch(batch);
        inFlight = 0;
      }
    })().finally(() => {
      pumping = null;
      if (ready.length > 0 && !closed) pump();
    });
  }

  return {
    send(body, delaySeconds = 0) {
      if (closed) throw new LocalQueueFullError('the queue is closed');
      if (ready.length + timers.size + inFlight >= maxMessages) {
        throw new LocalQueueFullError(`the queue holds ${maxMessages} messages`);
      }
      const message = { messageId: randomUUID(), body, receives: 0, sentAt: Date.now() };
      const delayMs = Math.min(900, Math.max(0, delaySeconds)) * 1_000;
      if (delayMs > 0) later(message, delayMs);
      else {
        ready.push(message);
        pump();
      }
    },
    async idle(idleOptions = {}) {
      const within = idleOptions.delayedWithinMs ?? 0;
      for (;;) {
        while (pumping !== null) await pumping;
        const limit = Date.now() + within;
        if (closed || ![...timers.values()].some((at) => at <= limit)) return;
        await fired.promise;
      }
    },
    async close() {
      closed = true;
      const dropped = timers.size;
      for (const timer of timers.keys()) clearTimeout(timer);
      timers.clear();
      while (pumping !== null) await pumping;
      return { dropped };
    },
  };
}
