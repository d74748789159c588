/**
 * Batches count against the enterprise's bound of open runs (issue 19): a DiagnosisBatch larger than the bound waits
 * — its items' Diagnose tasks are refused with DiagnosisTenantBusyError and the Map's child executions retry — and
 * never fails for being large. The deployed batch definition through the local interpreter, the real Diagnose chain
 * on DynamoDB Local; a retry waits until some run of the batch has ended, instead of time.
 */
import type { DiagnosisResult } from '@diagnosis/core';
import { createDynamoStores, createDynamoTenantLeaseStore } from '@diagnosis/core/store';
import { runLocalWorkflow } from '@diagnosis/devkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDiagnoseHandler } from '../../../functions/diagnose/diagnose-handler.ts';
import { buildDiagnosisBatchDefinition } from '../../../functions/diagnose/diagnosis-workflows.ts';
import { createObservability } from '../../../functions/lambda/observability.ts';
import { createTestTable, localDynamoClient } from '../../support/dynamodb.ts';
import { createFakeEvidence } from '../../support/fake-evidence.ts';
import { lambdaContext } from '../../support/lambda-events.ts';
import { noConclusionDraft } from '../../support/run-fixtures.ts';
import { scriptedModel, textRound } from '../../support/scripted-model.ts';

const FUNCTION_ARN = 'arn:aws:lambda:eu-west-1:123456789012:function:Diagnose';
const BATCH_ARN = 'arn:aws:states:eu-west-1:123456789012:stateMachine:diagnosis-test-DiagnosisBatch';
const MAX_OPEN_RUNS = 3;
const ITEMS = 8;
const dynamo = localDynamoClient();
let table: Awaited<ReturnType<typeof createTestTable>>;
beforeAll(async () => {
  table = await createTestTable(dynamo);
});
afterAll(async () => {
  await table?.drop();
  dynamo.destroy();
});

describe('a batch larger than its enterprise’s bound of open runs', () => {
  it('waits for places and runs every item, never more than the bound open at once', async () => {
    const store = createDynamoStores({ client: dynamo, tableName: table.tableName, maxOpenRuns: MAX_OPEN_RUNS });
    const leases = createDynamoTenantLeaseStore({ client: dynamo, tableName: table.tableName });
    let ended: () => void = () => undefined;
    let nextEnd = new Promise<void>((resolve) => {
      ended = resolve;
    });
    let mostOpen = 0;
    let busy = 0;
    const handler = createDiagnoseHandler(
      {
        model: scriptedModel(
          Array.from({ length: ITEMS }, () => async () => {
            const open = (await store.listOpenRuns()).find((entry) => entry.enterpriseId === 'E1001');
            mostOpen = Math.max(mostOpen, open?.runIds.length ?? 0);
            return textRound(JSON.stringify(noConclusionDraft()));
          }),
        ),
        evidence: createFakeEvidence().evidence,
        createStore: () => store,
        flushReserveMs: 3_000,
        limits: { finalRoundReserveMs: 300 },
      },
      { ...createObservability('Diagnose', () => undefined), leases: { store: leases, maxConcurrentRuns: ITEMS } },
    );
    const requests = Array.from({ length: ITEMS }, (_unused, index) => ({
      sessionId: `s-${index}`,
      enterpriseId: 'E1001',
      query: `第 ${index} 个问题：订单为什么失败？`,
    }));
    const execution = await runLocalWorkflow(
      buildDiagnosisBatchDefinition({ diagnoseFunctionArn: FUNCTION_ARN, maxConcurrency: ITEMS }),
      { requests },
      {
        executionName: `batch-${Date.now().toString(36)}`,
        stateMachineArn: BATCH_ARN,
        // A refused item waits until a run of the batch has ended (Step Functions would wait its backoff).
        sleep: async (_ms, error) => {
          if ((error as Error).name === 'DiagnosisTenantBusyError') busy += 1;
          await nextEnd;
        },
        invoke: async (_arn, payload) => {
          const result = (await handler(payload, lambdaContext(60_000))) as DiagnosisResult;
          const wake = ended;
          nextEnd = new Promise<void>((resolve) => {
            ended = resolve;
          });
          wake();
          return result;
        },
      },
    );
    expect(execution.status).toBe('SUCCEEDED');
    const output = (execution as { output: { total: number; failed: number; results: { status: string }[] } }).output;
    expect(output).toMatchObject({ total: ITEMS, failed: 0 });
    expect(output.results.map((result) => result.status)).toEqual(Array(ITEMS).fill('PUBLISHED'));
    expect(busy).toBeGreaterThan(0);
    expect(mostOpen).toBeLessThanOrEqual(MAX_OPEN_RUNS);
    expect((await store.listOpenRuns()).flatMap((entry) => entry.runIds)).toEqual([]);
  });
});
