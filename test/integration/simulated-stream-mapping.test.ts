/**
 * The benchmarks' stand-in for Lambda's DynamoDB stream mapping (bench/simulated-stream-mapping.ts) on DynamoDB
 * Local's stream: what a poll hands the function with the SlackCards filters, a batching window and a batch size, so
 * the card's figures rest on a simulation that does what AWS documents.
 */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  createSimulatedStreamMapping,
  POLL_INTERVAL_MS,
  type StreamMappingSettings,
} from '../../bench/simulated-stream-mapping.ts';
import { SLACK_CARD_STREAM_FILTERS } from '../../deploy/slack.ts';
import { localDynamoClient } from '../support/dynamodb.ts';
import { createStreamTable, type StreamTable } from '../support/table-stream.ts';

const client = localDynamoClient();
const streams = new DynamoDBStreamsClient({
  endpoint: inject('dynamodbEndpoint'),
  region: 'local',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});
let table: StreamTable;

beforeAll(async () => {
  table = await createStreamTable(client);
});
afterAll(async () => {
  await table.drop();
  streams.destroy();
  client.destroy();
});

const put = (pk: string, sk: string) =>
  client.send(new PutItemCommand({ TableName: table.tableName, Item: { pk: { S: pk }, sk: { S: sk } } }));

/** The mapping on the table's stream from now on; the batches it hands over, by their items' partition keys. */
async function mappingWith(settings: Partial<StreamMappingSettings>) {
  const batches: string[][] = [];
  const mapping = await createSimulatedStreamMapping({
    streams,
    streamArn: table.streamArn,
    settings: { batchSize: 100, maximumBatchingWindowInSeconds: 0, filters: SLACK_CARD_STREAM_FILTERS, ...settings },
    invoke: async (records: DynamoDBRecord[]) => {
      batches.push(records.map((record) => String(record.dynamodb?.Keys?.pk?.S)));
    },
  });
  return { mapping, batches };
}

describe('createSimulatedStreamMapping', () => {
  it('hands a poll’s records to the function at once with no window, leaving out what no filter matches', async () => {
    const { mapping, batches } = await mappingWith({});
    await put('RUN#a', 'RUN');
    await put('SLACKCARD#a', 'CARD');
    await put('RUN#b', 'RUN');

    expect(await mapping.poll(0)).toBe(1);
    expect(batches).toEqual([['RUN#a', 'RUN#b']]);
    expect(await mapping.poll(POLL_INTERVAL_MS)).toBe(0);
  });

  it('holds records for the batching window, counted from the poll that first read one', async () => {
    const { mapping, batches } = await mappingWith({ maximumBatchingWindowInSeconds: 1 });
    await put('RUN#c', 'RUN');
    expect(await mapping.poll(0)).toBe(0);
    await put('RUN#d', 'RUN');
    expect(await mapping.poll(750)).toBe(0);
    expect(batches).toEqual([]);

    expect(await mapping.poll(1_000)).toBe(1);
    expect(batches).toEqual([['RUN#c', 'RUN#d']]);
  });

  it('hands over a full batch before its window ends, and never more than the batch size at once', async () => {
    const { mapping, batches } = await mappingWith({ batchSize: 2, maximumBatchingWindowInSeconds: 5 });
    await put('RUN#e', 'RUN');
    await put('RUN#f', 'RUN');
    await put('RUN#g', 'RUN');

    expect(await mapping.poll(0)).toBe(1);
    expect(batches).toEqual([['RUN#e', 'RUN#f']]);
    expect(await mapping.poll(POLL_INTERVAL_MS)).toBe(0);
    expect(await mapping.poll(5_000)).toBe(0);
    expect(await mapping.poll(5_000 + POLL_INTERVAL_MS)).toBe(1);
    expect(batches).toEqual([['RUN#e', 'RUN#f'], ['RUN#g']]);
  });
});
