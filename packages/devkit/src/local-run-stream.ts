/**
 * The table stream's stand-in for run items, for one process: DynamoDB Local's table has no stream the local commands
 * could subscribe to, so the runs asked for (`follow`) are read back every `intervalMs` (each run item with one
 * consistent GetItem) and every change is handed to the subscribed function as Lambda's DynamoDB stream event —
 * `INSERT` the first time, `MODIFY` after; only items that changed, as a stream carries only writes. A run is let go
 * once a record of it ended was delivered; a record the function reported failed is delivered again at the next read,
 * at most `maxAttempts` times (the deployed mapping retries a failed batch too). Bounded: at most `maxRuns` followed
 * at once (`follow` answers false beyond). `flush()` reads once now; `close()` stops and waits for a read in flight.
 */
import { type AttributeValue, type DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { isEnded, RUN_STATUSES, type RunStatus } from '@diagnosis/core';
import { runKey } from '@diagnosis/core/store';
import type { DynamoDBRecord, DynamoDBStreamEvent, SQSBatchResponse } from 'aws-lambda';

export interface LocalRunStreamOptions {
  client: DynamoDBClient;
  tableName: string;
  /** The subscribed function (its partial batch response names failed records by sequence number). */
  deliver(event: DynamoDBStreamEvent): Promise<SQSBatchResponse | undefined>;
  intervalMs?: number;
  maxRuns?: number;
  maxAttempts?: number;
  /** The function threw on a batch, or a read failed. */
  onError?(error: unknown): void;
}

export interface LocalRunStream {
  /** Follows a run's item until a record of it ended was delivered; false when `maxRuns` are followed already. */
  follow(runId: string): boolean;
  /** Reads every followed run once now (after a read in flight) and delivers what changed. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

interface Followed {
  seen: string | null;
  attempts: number;
}

/** Whether the item's `status` is an ended run's. */
const ended = (item: Record<string, AttributeValue>): boolean => {
  const status = item.status?.S;
  return (RUN_STATUSES as readonly string[]).includes(status ?? '') && isEnded(status as RunStatus);
};

export function createLocalRunStream(options: LocalRunStreamOptions): LocalRunStream {
  const intervalMs = options.intervalMs ?? 500;
  const maxRuns = options.maxRuns ?? 100;
  const maxAttempts = options.maxAttempts ?? 3;
  const followed = new Map<string, Followed>();
  let sequence = 0;
  let reading: Promise<void> | null = null;
  let timer: ReturnType<typeof setInterval> | undefined;
  let closed = false;

  const readOnce = async () => {
    const records: DynamoDBRecord[] = [];
    const of = new Map<string, { runId: string; image: string; final: boolean }>();
    for (const [runId, state] of [...followed]) {
      const key = runKey(runId);
      const answer = await options.client.send(
        new GetItemCommand({
          TableName: options.tableName,
          Key: { pk: { S: key.pk }, sk: { S: key.sk } },
          ConsistentRead: true,
        }),
      );
      const item = answer.Item;
      if (item === undefined) continue;
      const image = JSON.stringify(item);
      if (image === state.seen) continue;
      sequence += 1;
      const sequenceNumber = String(sequence).padStart(21, '0');
      records.push({
        eventID: `local-${sequenceNumber}`,
        eventName: state.seen === null ? 'INSERT' : 'MODIFY',
        eventVersion: '1.1',
        eventSource: 'aws:dynamodb',
        awsRegion: 'local',
        dynamodb: {
          ApproximateCreationDateTime: Math.floor(Date.now() / 1_000),
          Keys: { pk: { S: key.pk }, sk: { S: key.sk } },
          NewImage: item as never,
          SequenceNumber: sequenceNumber,
          StreamViewType: 'NEW_AND_OLD_IMAGES',
        },
      });
      of.set(sequenceNumber, { runId, image, final: ended(item) });
    }
    if (records.length === 0) return;
    let failed: ReadonlySet<string>;
    try {
      const answer = await options.deliver({ Records: records });
      failed = new Set((answer?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier));
    } catch (error) {
      options.onError?.(error);
      failed = new Set(of.keys());
    }
    for (const [sequenceNumber, { runId, image, final }] of of) {
      const state = followed.get(runId);
      if (state === undefined) continue;
      state.attempts = failed.has(sequenceNumber) ? state.attempts + 1 : 0;
      if (state.attempts > 0 && state.attempts < maxAttempts) continue;
      state.attempts = 0;
      state.seen = image;
      if (final) followed.delete(runId);
    }
  };

  const read = (): Promise<void> => {
    reading ??= readOnce()
      .catch((error: unknown) => options.onError?.(error))
      .finally(() => {
        reading = null;
      });
    return reading;
  };

  return {
    follow(runId) {
      if (closed) return false;
      if (followed.has(runId)) return true;
      if (followed.size >= maxRuns) return false;
      followed.set(runId, { seen: null, attempts: 0 });
      timer ??= setInterval(() => {
        if (followed.size > 0) void read();
      }, intervalMs);
      return true;
    },
    async flush() {
      while (reading !== null) await reading;
      await read();
    },
    async close() {
      closed = true;
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
      while (reading !== null) await reading;
    },
  };
}
