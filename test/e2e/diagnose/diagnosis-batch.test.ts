import { DynamoDBDocumentClient, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { DiagnosisResult } from '@diagnosis/core';
import { createDynamoTenantLeaseStore, leasePartitionKey, leaseSortKey } from '@diagnosis/core/store';
import { scriptedRound } from '@diagnosis/devkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLocalBatch } from '../../../packages/cli/src/batch/run-local-batch.ts';
import type { DeepSeekResponse } from '../../support/deepseek-server.ts';
import { localDynamoClient } from '../../support/dynamodb.ts';
import { startE2eWorld } from '../../support/e2e-world.ts';
import { e1001ScriptedConversation, lambdaContext } from '../../support/lambda-events.ts';

const CAP = 3;
const conversation = e1001ScriptedConversation();
let world: Awaited<ReturnType<typeof startE2eWorld>>;
const dynamo = localDynamoClient();
const documents = DynamoDBDocumentClient.from(dynamo);

beforeAll(async () => {
  // NOTE: no run here is cancelled, so the deployed cancel poll (2 s) instead of the worlds' 100 ms: at 100 ms the
  // three runs in progress added about 170 consistent reads (a quarter of all this file's requests) to the DynamoDB
  // Local they are measured on. Every round still reads the flag once before it starts.
  world = await startE2eWorld({ TENANT_MAX_CONCURRENT_RUNS: String(CAP), DIAGNOSIS_CANCEL_POLL_MS: '2000' });
});
afterAll(async () => {
  await world?.cleanup();
  dynamo.destroy();
});

const leaseStore = () => createDynamoTenantLeaseStore({ client: dynamo, tableName: world.tableName });
const REQUEST = { sessionId: 'ops-batch', enterpriseId: 'E1001', query: conversation.query };

/**
 * One sample, read in one consistent Scan (the model's answer, and so the run, waits on it): the run items of these
 * runIds that are RUNNING right now, and the enterprise's unexpired lease slots.
 */
async function sample(prefix: string, enterpriseId: string): Promise<{ running: number; leases: number }> {
  const counts = { running: 0, leases: 0 };
  const now = Date.now();
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await documents.send(
      new ScanCommand({
        TableName: world.tableName,
        FilterExpression:
          '(entity = :run AND #status = :running AND begins_with(run_id, :prefix)) OR (pk = :lease AND entity = :slot)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':run': 'run',
          ':running': 'RUNNING',
          ':prefix': prefix,
          ':lease': leasePartitionKey(enterpriseId),
          ':slot': 'tenant_lease',
        },
        ConsistentRead: true,
        ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey }),
      }),
    );
    for (const item of page.Items ?? []) {
      if (item.entity === 'run') counts.running += 1;
      else if (Number(item.expires_at) > now) counts.leases += 1;
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey !== undefined);
  return counts;
}

/** The scripted E1001 conversation for every run at once: each request is answered by its own round's response. */
function answerEveryConversation(responses: DeepSeekResponse[], count: number, observe: () => Promise<void>) {
  const answer = async (request: Record<string, unknown>) => {
    await observe();
    const round = scriptedRound(request, responses);
    return structuredClone(responses[Math.min(round, responses.length - 1)] as DeepSeekResponse);
  };
  world.server.script.push(...Array.from({ length: count }, () => answer));
}

describe('a DiagnosisBatch of one enterprise under its lease cap', () => {
  it(`never has more than ${CAP} runs in progress for 12 requests at concurrency 8, and publishes them all`, async () => {
    const batch = `batch-${Date.now().toString(36)}`;
    const samples: { running: number; leases: number }[] = [];
    answerEveryConversation(conversation.responses, 12 * conversation.responses.length, async () => {
      samples.push(await sample(batch, 'E1001'));
    });
    // NOTE: a refused item retries once another run has finished (an event, not a timer): the slot it waits for.
    let finished = 0;
    let wake: (() => void)[] = [];
    const report = await runLocalBatch({
      requests: Array.from({ length: 12 }, (_, index) => ({ ...REQUEST, sessionId: `ops-batch-${index}` })),
      concurrency: 8,
      executionName: batch,
      invoke: async (payload) => {
        const finishedBefore = finished;
        try {
          const result = (await world.handlers.diagnose(payload, lambdaContext(60_000))) as DiagnosisResult;
          finished += 1;
          return result;
        } catch (error) {
          if ((error as Error).name !== 'DiagnosisTenantBusyError') finished += 1;
          else Object.assign(error as object, { finishedBefore });
          throw error;
        } finally {
          for (const resolve of wake.splice(0)) resolve();
        }
      },
      sleep: async (_milliseconds, error) => {
        const seen = (error as { finishedBefore?: number }).finishedBefore ?? finished;
        while (finished <= seen) await new Promise<void>((resolve) => wake.push(resolve));
      },
    });
    wake = [];

    expect(report.outcomes).toEqual({ PUBLISHED: 12 });
    expect(report.busyRefusals).toBeGreaterThan(0);
    expect(samples.length).toBe(12 * conversation.responses.length);
    // Each sample is read while a run of the batch waits on its model answer: that run is RUNNING and holds a slot.
    expect(Math.min(...samples.map((sample) => Math.min(sample.running, sample.leases)))).toBeGreaterThanOrEqual(1);
    expect(Math.max(...samples.map((sample) => sample.running))).toBeLessThanOrEqual(CAP);
    expect(Math.max(...samples.map((sample) => sample.leases))).toBeLessThanOrEqual(CAP);
    expect(await leaseStore().listLeases('E1001')).toEqual([]);
  });

  it('refuses each bad item as invalid input and still runs the good ones, whatever the batch is named', async () => {
    // 79 characters: `<name>-<index>` is longer than a run id may be, so an item without its own runId is refused.
    const longName = `long-${'n'.repeat(74)}`;
    const good = `batch-good-${Date.now().toString(36)}`;
    world.server.script.push(...structuredClone(conversation.responses));
    const report = await runLocalBatch({
      requests: [
        { ...REQUEST, runId: good },
        { ...REQUEST },
        { ...REQUEST, runId: `${good}-tenant`, enterpriseId: 'e1001' },
        { ...REQUEST, runId: `${good}-session`, sessionId: 's#TENANT#E2002' },
        { ...REQUEST, runId: '../RUN#x' },
      ],
      concurrency: 1,
      executionName: longName,
      invoke: async (payload) => world.handlers.diagnose(payload, lambdaContext(60_000)),
      sleep: async () => undefined,
    });
    expect(report.outcomes).toEqual({ PUBLISHED: 1, DiagnosisInputError: 4 });
    const written = (await world.items()).filter((item) => String(item.run_id ?? '').startsWith(longName));
    expect(written).toEqual([]);
    expect((await world.items()).filter((item) => String(item.run_id ?? '').startsWith(`${good}-`))).toEqual([]);
  });

  it('refuses a run with DiagnosisTenantBusyError while every slot is held, and writes no run', async () => {
    const expiresAt = Date.now() + 60_000;
    const enterpriseId = 'E2002';
    for (let slot = 0; slot < CAP; slot += 1) {
      await documents.send(
        new PutCommand({
          TableName: world.tableName,
          Item: {
            pk: leasePartitionKey(enterpriseId),
            sk: leaseSortKey(slot),
            entity: 'tenant_lease',
            enterprise_id: enterpriseId,
            slot,
            holder: `other-${slot}`,
            expires_at: expiresAt,
          },
        }),
      );
    }
    const runId = `busy-${Date.now().toString(36)}`;
    await expect(
      world.handlers.diagnose({ ...REQUEST, enterpriseId, runId }, lambdaContext(60_000)),
    ).rejects.toMatchObject({ name: 'DiagnosisTenantBusyError' });
    expect((await world.items()).filter((item) => item.run_id === runId)).toEqual([]);
  });

  it('reclaims the slots of crashed invocations once their leases have expired', async () => {
    const enterpriseId = 'E3003';
    for (let slot = 0; slot < CAP; slot += 1) {
      await documents.send(
        new PutCommand({
          TableName: world.tableName,
          Item: {
            pk: leasePartitionKey(enterpriseId),
            sk: leaseSortKey(slot),
            entity: 'tenant_lease',
            enterprise_id: enterpriseId,
            slot,
            holder: `crashed-${slot}`,
            expires_at: Date.now() - 1,
          },
        }),
      );
    }
    world.server.script.push(...structuredClone(conversation.responses));
    const result = (await world.handlers.diagnose(
      { ...REQUEST, enterpriseId, runId: `reclaim-${Date.now().toString(36)}` },
      lambdaContext(60_000),
    )) as DiagnosisResult;
    expect(['PUBLISHED', 'FALLBACK']).toContain(result.status);
    expect(await leaseStore().listLeases(enterpriseId)).toEqual([]);
  });
});
