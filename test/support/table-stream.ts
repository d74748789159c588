/**
 * A test table with a DynamoDB stream (NEW_AND_OLD_IMAGES, as sst.config.ts deploys it) on DynamoDB Local, and its
 * records read back with the Streams API and shaped as Lambda's DynamoDB Streams event (AWS documents that shape:
 * `Records[].{eventID, eventName, eventVersion, eventSource, awsRegion, dynamodb, eventSourceARN}`).
 */
import { CreateTableCommand, DeleteTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import { diagnosisTableDefinition } from '@diagnosis/core/store';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { inject } from 'vitest';

export interface StreamTable {
  tableName: string;
  streamArn: string;
  /** Every record written to the stream since the last call, as Lambda would deliver them. */
  readNewRecords: () => Promise<DynamoDBStreamEvent>;
  drop: () => Promise<void>;
}

/**
 * DynamoDB Local 3.x drops the type of an empty map in stream images (`{}` instead of `{ "M": {} }`; empty lists keep
 * theirs), which the web service and Lambda's stream events do not (awslabs/amazon-dynamodb-local-samples#37): an
 * attribute value without a type is put back as the empty map it can only be, at every depth.
 */
function withEmptyMaps(image: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (image === undefined) return undefined;
  const repair = (value: unknown): unknown => {
    if (typeof value !== 'object' || value === null) return value;
    const typed = value as Record<string, unknown>;
    if (Object.keys(typed).length === 0) return { M: {} };
    if (typed.M !== undefined) return { M: withEmptyMaps(typed.M as Record<string, unknown>) };
    if (Array.isArray(typed.L)) return { L: typed.L.map(repair) };
    return value;
  };
  return Object.fromEntries(Object.entries(image).map(([name, value]) => [name, repair(value)]));
}

export async function createStreamTable(client: DynamoDBClient): Promise<StreamTable> {
  const tableName = `diagnosis-stream-${Math.random().toString(36).slice(2, 10)}`;
  const created = await client.send(
    new CreateTableCommand({
      ...diagnosisTableDefinition(tableName),
      StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
    }),
  );
  const streamArn = created.TableDescription?.LatestStreamArn;
  if (streamArn === undefined) throw new Error('DynamoDB Local gave the table no stream');
  const streams = new DynamoDBStreamsClient({
    endpoint: inject('dynamodbEndpoint'),
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  // NOTE: no shard iterator is kept between reads, only the sequence number of the last record read in each shard.
  // DynamoDB Local numbers the records of every table's stream in one sequence, and refuses an iterator taken while
  // its shard had never had a record (TrimmedDataAccessException, "read past the oldest stream record") once another
  // table's write has come before the shard's first record — as it does when test files run side by side on the one
  // DynamoDB Local. Each read takes a new iterator: from the shard's start until a record is read, then after it.
  const lastRead = new Map<string, string>();

  async function iteratorOf(shardId: string): Promise<string | undefined> {
    const after = lastRead.get(shardId);
    const started = await streams.send(
      new GetShardIteratorCommand({
        StreamArn: streamArn,
        ShardId: shardId,
        ...(after === undefined
          ? { ShardIteratorType: 'TRIM_HORIZON' }
          : { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: after }),
      }),
    );
    return started.ShardIterator;
  }

  async function readNewRecords(): Promise<DynamoDBStreamEvent> {
    const records: DynamoDBRecord[] = [];
    const stream = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
    for (const shard of stream.StreamDescription?.Shards ?? []) {
      const shardId = shard.ShardId ?? '';
      let iterator = await iteratorOf(shardId);
      // Bounded: a test writes a few dozen items at most.
      for (let page = 0; page < 20 && iterator !== undefined; page += 1) {
        const result = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
        iterator = result.NextShardIterator;
        for (const record of result.Records ?? []) {
          const sequenceNumber = record.dynamodb?.SequenceNumber;
          if (sequenceNumber !== undefined) lastRead.set(shardId, sequenceNumber);
          records.push({
            eventID: record.eventID,
            eventName: record.eventName as DynamoDBRecord['eventName'],
            eventVersion: '1.1',
            eventSource: 'aws:dynamodb',
            awsRegion: 'eu-west-1',
            eventSourceARN: streamArn,
            dynamodb: {
              ApproximateCreationDateTime: Math.floor(
                (record.dynamodb?.ApproximateCreationDateTime?.getTime() ?? 0) / 1_000,
              ),
              Keys: record.dynamodb?.Keys as never,
              NewImage: withEmptyMaps(record.dynamodb?.NewImage) as never,
              OldImage: withEmptyMaps(record.dynamodb?.OldImage) as never,
              SequenceNumber: sequenceNumber,
              SizeBytes: record.dynamodb?.SizeBytes,
              StreamViewType: 'NEW_AND_OLD_IMAGES',
            },
          });
        }
        if ((result.Records ?? []).length === 0) break;
      }
    }
    return { Records: records };
  }

  return {
    tableName,
    streamArn,
    readNewRecords,
    drop: async () => {
      streams.destroy();
      await client.send(new DeleteTableCommand({ TableName: tableName })).catch(() => undefined);
    },
  };
}
