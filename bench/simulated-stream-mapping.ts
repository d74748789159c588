/**
 * Lambda's event source mapping on a DynamoDB stream, simulated over DynamoDB Local's stream for the benchmarks: the
 * shard read from its end (`LATEST`, as SST creates the mapping), each read's records passed through the mapping's
 * filters, held for its batching window and handed to the function in batches of at most its batch size, one batch at
 * a time (the next read waits for the function, as on one shard with Lambda's default parallelization of 1).
 *
 * How often to read is AWS's documented figure, not ours: "Lambda polls shards in your DynamoDB stream for records at
 * a base rate of 4 times per second", and it invokes the function as soon as records are available unless a batching
 * window is set, in which case it keeps reading "until it has gathered a full batch, the batching window expires, or
 * the batch reaches the payload limit of 6 MB" (AWS Lambda Developer Guide, "Using AWS Lambda with Amazon DynamoDB",
 * "Polling and batching streams": docs.aws.amazon.com/lambda/latest/dg/with-ddb.html, read in the stored
 * documentation on 2026-12-06). The 6 MB limit is not simulated: a run item is a few KB, a batch of 100 under 1 MB.
 * The caller drives the clock: `poll(at)` is one read at `at` (ms), so a bench can poll on real time or a virtual one.
 */
import {
  DescribeStreamCommand,
  type DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';
import { streamFilterDelivers } from '../test/support/stream-filter.ts';

/** Lambda's base rate of reads of a DynamoDB stream's shard (with-ddb.html, above). */
export const POLLS_PER_SECOND = 4;
export const POLL_INTERVAL_MS = 1_000 / POLLS_PER_SECOND;

/** The mapping's settings the deployment gives (deploy/*.ts), as the simulation reads them. */
export interface StreamMappingSettings {
  batchSize: number;
  maximumBatchingWindowInSeconds: number;
  filters: readonly unknown[];
}

export interface SimulatedStreamMapping {
  /** One read of the shard at `at` (ms); the batches now due are handed to the function. Answers how many. */
  poll(at: number): Promise<number>;
}

/** The mapping on the stream's only shard (DynamoDB Local's stream of a fresh table has one), from its end. */
export async function createSimulatedStreamMapping(options: {
  streams: DynamoDBStreamsClient;
  streamArn: string;
  settings: StreamMappingSettings;
  invoke(records: DynamoDBRecord[]): Promise<void>;
}): Promise<SimulatedStreamMapping> {
  const { streams, streamArn, settings } = options;
  const shards = (await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }))).StreamDescription?.Shards;
  if (shards?.length !== 1) throw new Error('the simulated mapping reads a stream of one shard');
  const shardId = shards[0]?.ShardId ?? '';
  const iteratorOf = async (type: 'LATEST' | 'TRIM_HORIZON') =>
    (
      await streams.send(
        new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shardId, ShardIteratorType: type }),
      )
    ).ShardIterator;
  // NOTE: DynamoDB Local numbers the records of every table's stream in one sequence, and refuses an iterator taken
  // while its shard had never had a record (TrimmedDataAccessException) once another table's write has come before
  // the shard's first record. On a shard with no record yet, "from its end" is its start: each poll takes a new
  // iterator from there until it reads a record, then goes on from that read's next iterator, as on one with records.
  const written =
    (
      (await streams.send(new GetRecordsCommand({ ShardIterator: await iteratorOf('TRIM_HORIZON'), Limit: 1 })))
        .Records ?? []
    ).length > 0;
  let iterator = written ? await iteratorOf('LATEST') : undefined;
  let read = written;
  const windowMs = settings.maximumBatchingWindowInSeconds * 1_000;
  const held: DynamoDBRecord[] = [];
  let heldSince: number | null = null;

  return {
    async poll(at) {
      if (!read) iterator = await iteratorOf('TRIM_HORIZON');
      if (iterator === undefined) throw new Error('the shard is closed');
      const page = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: settings.batchSize }));
      iterator = page.NextShardIterator;
      read ||= (page.Records ?? []).length > 0;
      for (const record of page.Records ?? []) {
        const shaped: DynamoDBRecord = {
          eventID: record.eventID,
          eventName: record.eventName as DynamoDBRecord['eventName'],
          eventSource: 'aws:dynamodb',
          eventSourceARN: streamArn,
          dynamodb: {
            Keys: record.dynamodb?.Keys as never,
            NewImage: record.dynamodb?.NewImage as never,
            OldImage: record.dynamodb?.OldImage as never,
            SequenceNumber: record.dynamodb?.SequenceNumber,
            StreamViewType: 'NEW_AND_OLD_IMAGES',
          },
        };
        // NOTE: a record no filter matches never reaches the function, nor counts towards a batch.
        if (settings.filters.length > 0 && !streamFilterDelivers(settings.filters, shaped)) continue;
        held.push(shaped);
        heldSince ??= at;
      }
      let invoked = 0;
      while (held.length > 0 && (held.length >= settings.batchSize || at - (heldSince ?? at) >= windowMs)) {
        await options.invoke(held.splice(0, settings.batchSize));
        invoked += 1;
        heldSince = held.length > 0 ? at : null;
      }
      return invoked;
    },
  };
}
