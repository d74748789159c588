/**
 * The asynchronous API on DynamoDB Local: how long `startDiagnosis` takes to answer (queue the run, start its
 * workflow — here the in-process stand-in, so the Step Functions call itself is not in the figure), how long one
 * cancel-flag read takes (the projected consistent read a running invocation makes every DIAGNOSIS_CANCEL_POLL_MS),
 * and how long a running run takes to end CANCELLED after a cancel request with the product's 2 s poll.
 * Run: `node bench/async-api.ts` (also part of `npm run bench`).
 */

import type { LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  CANCEL_POLL_MS,
  cancelDiagnosis,
  type DiagnosisRunRequest,
  type DiagnosisWorkflow,
  executeDiagnosisRun,
  startDiagnosis,
} from '@diagnosis/core';
import { createDynamoStores, ensureDiagnosisTable } from '@diagnosis/core/store';
import { startDynamoDbLocal } from '@diagnosis/devkit';
import { MockLanguageModelV4 } from 'ai/test';
import { createFakeEvidence } from '../test/support/fake-evidence.ts';
import { summary } from './latency.ts';

const STARTS = Number(process.env.BENCH_ASYNC_STARTS ?? 50);
const READS = Number(process.env.BENCH_ASYNC_READS ?? 200);
const CANCELS = Number(process.env.BENCH_ASYNC_CANCELS ?? 8);

/** A model whose every round waits until the run is aborted: the run stays RUNNING until it is cancelled. */
function blockingModel() {
  return new MockLanguageModelV4({
    doGenerate: async ({ abortSignal }) =>
      new Promise<LanguageModelV4GenerateResult>((_resolve, reject) => {
        abortSignal?.addEventListener('abort', () => reject(abortSignal.reason), { once: true });
      }),
  });
}

export async function benchAsyncApi(): Promise<void> {
  const engine = await startDynamoDbLocal();
  const client = new DynamoDBClient({
    endpoint: engine.endpoint,
    region: 'local',
    credentials: { accessKeyId: 'l', secretAccessKey: 'l' },
  });
  try {
    const tableName = 'bench-async';
    await ensureDiagnosisTable(client, tableName);
    // NOTE: the bench queues STARTS runs of one enterprise that stay open: admission (the same transaction as
    // deployed) is kept, with a bound above STARTS so the start latency, not the refusal, is measured.
    const store = () => createDynamoStores({ client, tableName, maxOpenRuns: 1_000 });
    const running = new Set<Promise<unknown>>();
    const workflow: DiagnosisWorkflow = {
      executionArnOf: (runId: string) => `arn:aws:states:local:000000000000:execution:DiagnosisWorkflow:${runId}`,
      async start(request: DiagnosisRunRequest) {
        // NOTE: the run's own execution, as the DiagnosisWorkflow's payload names it: only it may take the run.
        const executionArn = `arn:aws:states:local:000000000000:execution:DiagnosisWorkflow:${request.runId}`;
        const run = executeDiagnosisRun(
          { ...request, executionArn, remainingMs: 120_000 },
          {
            model: blockingModel(),
            evidence: createFakeEvidence().evidence,
            createStore: store,
            flushReserveMs: 1_000,
          },
        ).catch(() => undefined);
        running.add(run);
      },
      async stop() {},
    };
    const request = (index: number): DiagnosisRunRequest => ({
      runId: `bench-${Date.now().toString(36)}-${index}`,
      sessionId: 'bench',
      enterpriseId: 'E1001',
      query: 'E1001 的订单从 14:05 开始失败，为什么？',
      continueSession: false,
    });

    // 1. Start latency: queue + workflow start, as POST /diagnoses answers 202.
    const starts: number[] = [];
    const startedIds: string[] = [];
    const noop: DiagnosisWorkflow = {
      executionArnOf: (runId: string) => `arn:aws:states:local:000000000000:execution:DiagnosisWorkflow:${runId}`,
      start: async () => undefined,
      stop: async () => undefined,
    };
    for (let index = 0; index < STARTS; index += 1) {
      const next = request(index);
      const begin = performance.now();
      await startDiagnosis(next, { store: store(), workflow: noop });
      starts.push(performance.now() - begin);
      startedIds.push(next.runId);
    }
    console.log(`async start (queue the run + start the workflow): ${summary(starts)}`);

    // 2. One cancel-flag read, as a running invocation makes it.
    const reads: number[] = [];
    const reader = store();
    for (let index = 0; index < READS; index += 1) {
      const begin = performance.now();
      await reader.isCancelRequested(startedIds[index % startedIds.length] ?? 'none');
      reads.push(performance.now() - begin);
    }
    console.log(`cancel-flag read (projected, consistent): ${summary(reads)}`);

    // 3. Cancel to stop: a RUNNING run (its model waits) until it is CANCELLED in the table.
    const stops: number[] = [];
    for (let index = 0; index < CANCELS; index += 1) {
      const next = request(1_000 + index);
      await startDiagnosis(next, { store: store(), workflow });
      const watcher = store();
      while ((await watcher.getRun(next.runId))?.status !== 'RUNNING') await new Promise((r) => setTimeout(r, 5));
      const begin = performance.now();
      await cancelDiagnosis(next.runId, { store: watcher });
      while ((await watcher.getRun(next.runId))?.status !== 'CANCELLED') await new Promise((r) => setTimeout(r, 10));
      stops.push(performance.now() - begin);
    }
    console.log(`cancel to CANCELLED with a ${CANCEL_POLL_MS} ms poll: ${summary(stops)}`);
    await Promise.all([...running]);
  } finally {
    client.destroy();
    await engine.stop();
  }
}

if (import.meta.main) await benchAsyncApi();
