/**
 * Issue 19, defect 2: 300 POST /diagnoses for one enterprise in a row were all
 * accepted, each starting a Standard execution that polls Diagnose while the tenant is busy — one caller could
 * exhaust the account's StartExecution quota and Lambda concurrency for every tenant. Admission control bounds the
 * QUEUED or RUNNING runs of one enterprise in the table (TENANT_MAX_OPEN_RUNS, default 20): over it, 429 TENANT_BUSY
 * with Retry-After, nothing written, nothing started. Through the real StartDiagnosis and CancelRun handlers on
 * DynamoDB Local; the workflow records its starts and runs nothing, so every accepted run stays QUEUED.
 */
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { DEFAULT_TENANT_MAX_OPEN_RUNS, type DiagnosisWorkflow } from '@diagnosis/core';
import { createDynamoRunStore } from '@diagnosis/core/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCancelRunHandler } from '../../../functions/api/cancel-handler.ts';
import { createStartDiagnosisHandler } from '../../../functions/api/start-handler.ts';
import { executionArnOf, LOCAL_WORKFLOW_ARN } from '../../../functions/diagnose/diagnosis-workflows.ts';
import { createObservability } from '../../../functions/lambda/observability.ts';
import { createTestTable, localDynamoClient } from '../../support/dynamodb.ts';
import { httpEvent, lambdaContext } from '../../support/lambda-events.ts';

const dynamo = localDynamoClient();
let table: Awaited<ReturnType<typeof createTestTable>>;
const started: string[] = [];
const workflow: DiagnosisWorkflow = {
  executionArnOf: (runId) => executionArnOf(LOCAL_WORKFLOW_ARN, runId),
  start: async (request) => void started.push(request.runId),
  stop: async () => undefined,
};
const emitted: string[] = [];
let start: ReturnType<typeof createStartDiagnosisHandler>;
let cancel: ReturnType<typeof createCancelRunHandler>;

beforeAll(async () => {
  table = await createTestTable(dynamo);
  // NOTE: the store's own default bound: nothing here sets TENANT_MAX_OPEN_RUNS.
  const store = createDynamoRunStore({ client: dynamo, tableName: table.tableName });
  const observability = createObservability('StartDiagnosis', (line) => void emitted.push(line));
  start = createStartDiagnosisHandler({ store, workflow }, { ...observability, policy: null });
  cancel = createCancelRunHandler({ store, workflow }, { logger: observability.logger, policy: null });
});
afterAll(async () => {
  await table?.drop();
  dynamo.destroy();
});

type Answer = { status: number; headers: Record<string, string>; body: Record<string, unknown> };
const post = async (body: Record<string, unknown>): Promise<Answer> => {
  const response = (await start(httpEvent({ body: JSON.stringify(body) }) as never, lambdaContext(30_000))) as {
    statusCode: number;
    headers: Record<string, string>;
    body: string;
  };
  return { status: response.statusCode, headers: response.headers, body: JSON.parse(response.body) };
};
const request = (index: number, enterpriseId = 'E1001') => ({
  runId: `flood-${enterpriseId}-${String(index).padStart(3, '0')}`,
  sessionId: 's',
  enterpriseId,
  query: 'E1001 的订单从 14:05 开始失败，为什么？',
});
async function runItems(): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await DynamoDBDocumentClient.from(dynamo).send(
      new ScanCommand({
        TableName: table.tableName,
        ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey }),
      }),
    );
    items.push(...(page.Items ?? []).filter((item) => item.entity === 'run'));
    startKey = page.LastEvaluatedKey;
  } while (startKey !== undefined);
  return items;
}

describe('admission control per enterprise', () => {
  it('accepts at most TENANT_MAX_OPEN_RUNS of 300 starts of one enterprise, and another enterprise still starts', async () => {
    const answers: Answer[] = [];
    // In waves of 25 at once, as a flooding caller would send them: contention on the enterprise's admission item
    // must refuse (429), never admit past the bound.
    for (let wave = 0; wave < 12; wave += 1) {
      answers.push(
        ...(await Promise.all(Array.from({ length: 25 }, (_unused, index) => post(request(wave * 25 + index))))),
      );
    }
    const accepted = answers.filter((answer) => answer.status === 202);
    const refused = answers.filter((answer) => answer.status === 429);
    expect(accepted.length).toBeLessThanOrEqual(DEFAULT_TENANT_MAX_OPEN_RUNS);
    expect(accepted.length).toBeGreaterThan(0);
    expect(accepted.length + refused.length).toBe(300);
    for (const answer of refused) {
      expect(answer.body).toEqual({ error: { code: 'TENANT_BUSY', message: expect.any(String) } });
      expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
    }
    // Nothing written and nothing started for a refused start.
    const runs = await runItems();
    expect(runs.filter((item) => item.enterprise_id === 'E1001')).toHaveLength(accepted.length);
    expect(started).toHaveLength(accepted.length);
    // Each refusal counted in the RejectedStarts metric (EMF), and nothing else is emitted.
    const rejected = emitted.map((line) => JSON.parse(line)).filter((record) => record.RejectedStarts === 1);
    expect(rejected).toHaveLength(refused.length);

    // Another enterprise is not starved.
    expect(await post(request(0, 'E2002'))).toMatchObject({ status: 202, body: { status: 'QUEUED' } });
    // NOTE: 300 real requests against DynamoDB Local: a bound on a busy machine, not a latency claim.
  }, 180_000);

  it('fills the bound exactly when the starts come one by one, and answers a replay of an admitted run without counting it', async () => {
    const enterprise = 'E3003';
    const answers: Answer[] = [];
    for (let index = 0; index < DEFAULT_TENANT_MAX_OPEN_RUNS + 5; index += 1)
      answers.push(await post(request(index, enterprise)));
    expect(answers.map((answer) => answer.status)).toEqual([
      ...Array(DEFAULT_TENANT_MAX_OPEN_RUNS).fill(202),
      ...Array(5).fill(429),
    ]);
    // An idempotent replay of an admitted run is its run again, never a refusal and never a second place.
    expect(await post(request(3, enterprise))).toMatchObject({
      status: 202,
      body: { runId: request(3, enterprise).runId },
    });
    expect(await post(request(DEFAULT_TENANT_MAX_OPEN_RUNS + 1, enterprise))).toMatchObject({ status: 429 });

    // A run that ends frees its place: the next start is admitted.
    const cancelled = (await cancel(
      httpEvent({
        path: `/runs/${request(0, enterprise).runId}/cancel`,
        pathParameters: { runId: request(0, enterprise).runId },
      }) as never,
      lambdaContext(10_000),
    )) as { statusCode: number; body: string };
    expect(JSON.parse(cancelled.body)).toMatchObject({ status: 'CANCELLED' });
    expect(await post(request(DEFAULT_TENANT_MAX_OPEN_RUNS + 1, enterprise))).toMatchObject({ status: 202 });
    expect(await post(request(DEFAULT_TENANT_MAX_OPEN_RUNS + 2, enterprise))).toMatchObject({ status: 429 });
  });
});
