import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DEFAULT_RUN_LIMITS } from '@diagnosis/core';
import { createDynamoStores, createMemoryStores } from '@diagnosis/core/store';
import { describe, expect, it } from 'vitest';
import { failedOutcome, publishedOutcome, STORE_T0, stepEvent, toolEvent } from '../../../support/audit-events.ts';

/**
 * The stored item format, pinned: every request the DynamoDB adapters send for a run's whole life (its body exactly as
 * it goes on the wire), and every item the in-memory twin holds afterwards. NOTE: the snapshot was recorded before the
 * store was split by port and by item (issue #20), so a refactoring that changes one byte of an item, one attribute's
 * place or one condition fails here.
 */

const RUN = 'run-wire-1';
const QUEUED = 'run-wire-2';

/** A client that never reaches the network: each request's operation and body are kept, and an empty answer given. */
function recordingClient() {
  const client = new DynamoDBClient({
    endpoint: 'http://127.0.0.1:9',
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  const requests: { operation: string; body: unknown }[] = [];
  client.middlewareStack.add(
    () => async (args) => {
      const request = args.request as { headers: Record<string, string>; body: string | Uint8Array };
      const text = typeof request.body === 'string' ? request.body : new TextDecoder().decode(request.body);
      const body = JSON.parse(text) as Record<string, unknown>;
      // NOTE: the SDK draws a fresh idempotency token for each transaction; whether one is sent is what is pinned.
      if (typeof body.ClientRequestToken === 'string') body.ClientRequestToken = '<idempotency token>';
      requests.push({ operation: String(request.headers['x-amz-target']).replace('DynamoDB_20120810.', ''), body });
      return { output: { $metadata: {} }, response: {} } as never;
    },
    { step: 'build', name: 'recordRequests', priority: 'low' },
  );
  return { client, requests };
}

const request = (runId: string) => ({
  runId,
  sessionId: 'session-1',
  enterpriseId: 'E1001',
  query: 'E1001 的订单从 14:05 开始失败，为什么？',
  continueSession: true,
});

const trigger = {
  source: 'cloudwatch' as const,
  incidentKey: 'arn:aws:cloudwatch:eu-west-1:123456789012:alarm:x@2026-11-30T06:05:00.000Z',
  eventId: 'event-1',
  title: 'x',
  startedAt: '2026-11-30T06:05:00.000Z',
};

/** Everything a store is asked to write during a run, and the reads that carry a key of this store's making. */
async function liveOneRun(store: ReturnType<typeof createDynamoStores>) {
  await store.startRun(request(RUN), { deadlineAt: STORE_T0 + 60_000, executionArn: 'arn:execution:1' });
  await store.queueRun(
    { ...request(QUEUED), trigger, window: { from: '2026-11-30T05:35:00.000Z', to: '2026-11-30T06:06:00.000Z' } },
    { executionArn: 'arn:execution:2' },
  );
  await store.claimQueuedRun(QUEUED, STORE_T0 + 90_000, { owner: 'arn:execution:2' });
  // NOTE: a sealed batch as the masking would hand it over (sealing itself draws a random IV, so it is spelt out).
  await store.onPseudonyms?.({
    sessionId: 'session-1',
    runId: RUN,
    sequence: 1,
    count: 2,
    sealed: { iv: 'aXYtb2YtMTItYnl0', tag: 'dGFnLW9mLTE2LWJ5dGVzIQ==', ciphertext: 'Y2lwaGVydGV4dA==' },
  });
  await store.onModelStep(stepEvent(RUN, 1));
  await store.onToolInvocation(toolEvent(RUN, 'call_01_a'));
  await store.onToolInvocation(
    toolEvent(RUN, 'call_01_a', {
      disposition: 'REJECTED',
      status: null,
      code: 'DUPLICATE_TOOL_CALL_ID',
      result: null,
    }),
  );
  await store.onToolInvocation(
    toolEvent(RUN, 'bad#id', { disposition: 'REJECTED', status: null, code: 'INVALID_TOOL_CALL_ID', result: null }),
  );
  await store.onModelStep(
    stepEvent(RUN, 2, { role: 'JUDGE', finishReason: 'stop', toolCalls: [], usageEstimated: true }),
  );
  const published = publishedOutcome();
  if (published.progress === null) throw new Error('fixture without progress');
  await store.updateProgress(RUN, { usage: published.usage, progress: published.progress, deadlineAt: STORE_T0 + 1 });
  await store.heartbeat(RUN);
  await store.isCancelRequested(RUN);
  await store.flush();
  await store.completeRun(
    RUN,
    {
      ...published,
      collectionStopReason: 'TOOL_CALL_BUDGET',
      limits: DEFAULT_RUN_LIMITS,
      deadlineAt: STORE_T0 + 60_000,
      masking: 'identifiers',
    },
    { ifHeartbeatAt: new Date(STORE_T0).toISOString() },
  );
  await store.requestCancel(QUEUED, {
    ...failedOutcome(),
    status: 'CANCELLED',
    stopReason: 'CANCELLED',
    modelFailure: { kind: 'HTTP', httpStatus: 503, errorClass: 'APICallError', networkCode: null },
  });
  await store.forgetOpenRun('E1001', QUEUED);
  await store.getRun(RUN);
  await store.findPreviousRun('E1001', 'session-1');
  await store.listOpenRuns();
  const cursor = Buffer.from(JSON.stringify({ pk: `RUN#${RUN}`, sk: 'STEP#0001' })).toString('base64url');
  await store.listRunRecords(RUN, { cursor, limit: 2 });
  await store.listReasoning(RUN);
  await store.listPseudonyms(RUN);
}

describe('the stored item format', () => {
  it('sends exactly the recorded DynamoDB requests for a run’s whole life', async () => {
    const { client, requests } = recordingClient();
    await liveOneRun(createDynamoStores({ client, tableName: 'diagnosis', now: () => STORE_T0 }));
    await expect(`${JSON.stringify(requests, null, 2)}\n`).toMatchFileSnapshot(
      './__snapshots__/dynamo-requests.json.snap',
    );
  });

  it('holds exactly the recorded items in the in-memory twin after the same run', async () => {
    const store = createMemoryStores({ now: () => STORE_T0 });
    await liveOneRun(store);
    await expect(`${JSON.stringify([...store.items], null, 2)}\n`).toMatchFileSnapshot(
      './__snapshots__/memory-items.json.snap',
    );
  });
});
