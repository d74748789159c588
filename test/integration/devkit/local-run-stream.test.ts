/**
 * The table stream's stand-in on DynamoDB Local: followed run items read back and their changes delivered as Lambda's
 * DynamoDB stream records — only what changed, INSERT then MODIFY; a run let go once a record of it ended was
 * delivered; a failed record delivered again, a bounded number of times; at most `maxRuns` followed. Reads are driven
 * by `flush()` (the interval is an hour), so nothing here waits on time.
 */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalRunStream } from '../../../packages/devkit/src/local-run-stream.ts';
import { createTestTable, localDynamoClient } from '../../support/dynamodb.ts';

const client = localDynamoClient();
let table: Awaited<ReturnType<typeof createTestTable>>;

beforeAll(async () => {
  table = await createTestTable(client);
});
afterAll(async () => {
  await table.drop();
  client.destroy();
});

const writeRun = (runId: string, status: string, round = 0) =>
  client.send(
    new PutItemCommand({
      TableName: table.tableName,
      Item: { pk: { S: `RUN#${runId}` }, sk: { S: 'RUN' }, status: { S: status }, round: { N: String(round) } },
    }),
  );

/** A subscribed function recording (run id, event name, status) per record, failing the runs in `failing`. */
function recorder(failing: Set<string> = new Set()) {
  const seen: string[] = [];
  const deliver = async (event: DynamoDBStreamEvent) => {
    const failures: { itemIdentifier: string }[] = [];
    for (const record of event.Records) {
      const runId = String(record.dynamodb?.Keys?.pk?.S).slice('RUN#'.length);
      seen.push(`${runId} ${record.eventName} ${record.dynamodb?.NewImage?.status?.S}`);
      if (failing.has(runId)) failures.push({ itemIdentifier: String(record.dynamodb?.SequenceNumber) });
    }
    return { batchItemFailures: failures };
  };
  return { seen, deliver };
}

describe('createLocalRunStream', () => {
  it('delivers a followed run’s changes only, INSERT then MODIFY, and lets it go once it ended', async () => {
    const { seen, deliver } = recorder();
    const stream = createLocalRunStream({ client, tableName: table.tableName, deliver, intervalMs: 3_600_000 });
    await writeRun('a1', 'QUEUED');
    expect(stream.follow('a1')).toBe(true);
    await stream.flush();
    await stream.flush();
    await writeRun('a1', 'RUNNING', 1);
    await stream.flush();
    await writeRun('a1', 'SUCCEEDED', 2);
    await stream.flush();
    await writeRun('a1', 'SUCCEEDED', 3);
    await stream.flush();
    expect(seen).toEqual(['a1 INSERT QUEUED', 'a1 MODIFY RUNNING', 'a1 MODIFY SUCCEEDED']);
    await stream.close();
  });

  it('delivers a failed record again at the next read, at most maxAttempts times', async () => {
    const failing = new Set(['b1']);
    const { seen, deliver } = recorder(failing);
    const stream = createLocalRunStream({
      client,
      tableName: table.tableName,
      deliver,
      intervalMs: 3_600_000,
      maxAttempts: 3,
    });
    await writeRun('b1', 'RUNNING');
    stream.follow('b1');
    for (let read = 0; read < 5; read += 1) await stream.flush();
    expect(seen).toEqual(['b1 INSERT RUNNING', 'b1 INSERT RUNNING', 'b1 INSERT RUNNING']);
    await stream.close();
  });

  it('follows at most maxRuns runs, and nothing after close', async () => {
    const { seen, deliver } = recorder();
    const stream = createLocalRunStream({
      client,
      tableName: table.tableName,
      deliver,
      intervalMs: 3_600_000,
      maxRuns: 2,
    });
    await writeRun('c1', 'RUNNING');
    await writeRun('c2', 'RUNNING');
    await writeRun('c3', 'RUNNING');
    expect([stream.follow('c1'), stream.follow('c2'), stream.follow('c1'), stream.follow('c3')]).toEqual([
      true,
      true,
      true,
      false,
    ]);
    await stream.flush();
    expect(seen.sort()).toEqual(['c1 INSERT RUNNING', 'c2 INSERT RUNNING']);
    await stream.close();
    expect(stream.follow('c3')).toBe(false);
  });
});
