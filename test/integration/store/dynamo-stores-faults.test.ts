import {
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  ProvisionedThroughputExceededException,
} from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { AuditWriteError, createDynamoStores, type StoredReasoning } from '@diagnosis/core/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_T0, stepEvent, toolEvent } from '../../support/audit-events.ts';
import { createTestTable, localDynamoClient } from '../../support/dynamodb.ts';

const client = localDynamoClient({ maxAttempts: 2 });
let table: Awaited<ReturnType<typeof createTestTable>>;

beforeAll(async () => {
  table = await createTestTable(client);
});
afterAll(async () => {
  await table.drop();
  client.destroy();
});

/** A client whose puts of chosen sort keys fail as throttled, on every attempt (the SDK's own retries included). */
function throttlingClient(failingSortKeys: string[]) {
  const faulty = localDynamoClient({ maxAttempts: 2 });
  let attempts = 0;
  faulty.middlewareStack.add(
    (next) => async (args) => {
      const input = args.input as { Item?: { sk?: { S?: string } } };
      if (failingSortKeys.includes(input.Item?.sk?.S ?? '')) {
        attempts += 1;
        throw new ProvisionedThroughputExceededException({
          message: 'Rate exceeded for table',
          $metadata: { httpStatusCode: 400 },
        });
      }
      return next(args);
    },
    { step: 'finalizeRequest', name: 'injectThrottling' },
  );
  return { faulty, attempts: () => attempts };
}

describe('createDynamoStores on DynamoDB Local', () => {
  it('creates the table with gsi1 and TTL on ttl', async () => {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: table.tableName }));
    expect(Table?.GlobalSecondaryIndexes?.[0]).toMatchObject({
      IndexName: 'gsi1',
      Projection: { ProjectionType: 'ALL' },
    });
    const ttl = await client.send(new DescribeTimeToLiveCommand({ TableName: table.tableName }));
    expect(ttl.TimeToLiveDescription).toMatchObject({ AttributeName: 'ttl', TimeToLiveStatus: 'ENABLED' });
  });

  it('surfaces a throttled write at flush as a typed error naming it, after the SDK’s retries and the writer’s own tries, with the other items intact', async () => {
    const { faulty, attempts } = throttlingClient(['TOOL#call_throttled']);
    const store = createDynamoStores({
      client: faulty,
      tableName: table.tableName,
      now: () => STORE_T0,
      sleep: async () => undefined,
    });
    const runId = 'run-throttled';
    await store.startRun({ runId, sessionId: 's', enterpriseId: 'E1001', query: 'q', continueSession: false });
    await store.onModelStep(stepEvent(runId, 1));
    await store.onToolInvocation(toolEvent(runId, 'call_ok'));
    await store.onToolInvocation(toolEvent(runId, 'call_throttled'));
    const failure = await store.flush().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(AuditWriteError);
    expect((failure as AuditWriteError).failedItems).toEqual([
      { key: `RUN#${runId}|TOOL#call_throttled`, reason: 'ProvisionedThroughputExceededException' },
    ]);
    expect(attempts()).toBe(6);
    const { records } = await store.listRunRecords(runId);
    const reasoning = await store.listReasoning(runId);
    expect([...records, ...reasoning.records].map((record) => record.entity).sort()).toEqual([
      'agent_reasoning_audit',
      'agent_step',
      'run',
      'tool_invocation',
    ]);
    await expect(store.flush()).resolves.toEqual({ retriedWrites: [] });
    faulty.destroy();
  });

  it('refuses to read an item that fails its schema', async () => {
    const documents = DynamoDBDocumentClient.from(client);
    await documents.send(
      new PutCommand({
        TableName: table.tableName,
        Item: { pk: 'RUN#corrupt', sk: 'RUN', entity: 'run', schema_version: 1, status: 'DONE' },
      }),
    );
    const store = createDynamoStores({ client, tableName: table.tableName });
    await expect(store.getRun('corrupt')).rejects.toMatchObject({ name: 'RunStoreError', code: 'CORRUPT_ITEM' });
  });

  it('writes the largest possible reasoning item (two 32,000-character texts of 4-byte characters) without failing', async () => {
    const store = createDynamoStores({ client, tableName: table.tableName });
    const runId = 'run-emoji';
    await store.startRun({ runId, sessionId: 's', enterpriseId: 'E1001', query: 'q', continueSession: false });
    await store.onModelStep(
      stepEvent(runId, 1, { reasoningContent: '🔥'.repeat(40_000), assistantText: '🧯'.repeat(40_000) }),
    );
    await store.flush();
    const { records } = await store.listReasoning(runId);
    const reasoning = records[0] as StoredReasoning;
    expect(reasoning.reasoningContent.length).toBe(32_000);
    expect(reasoning.contentBytes).toBe(2 * 16_000 * 4);
  });
});
