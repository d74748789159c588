/**
 * Audit store on DynamoDB Local: the items of a 10-round run written write-behind vs awaited one by one, the time
 * `flush()` takes after the last event, and the DynamoDB requests per run counted by a client middleware.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createDynamoStores, ensureDiagnosisTable } from '@diagnosis/core/store';
import { startDynamoDbLocal } from '@diagnosis/devkit';
import { publishedOutcome, stepEvent, toolEvent } from '../test/support/audit-events.ts';

const ROUNDS = 10;
const RUNS = Number(process.env.BENCH_AUDIT_RUNS ?? 20);

function countingClient(endpoint: string) {
  const client = new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'l', secretAccessKey: 'l' },
  });
  let requests = 0;
  client.middlewareStack.add(
    (next) => async (args) => {
      requests += 1;
      return next(args);
    },
    { step: 'initialize', name: 'countRequests' },
  );
  return {
    client,
    requests: () => requests,
    reset: () => {
      requests = 0;
    },
  };
}

/** One 10-round run: 10 steps (step + reasoning items) and a tool call after each of the first 9 rounds. */
async function auditRun(
  store: ReturnType<typeof createDynamoStores>,
  runId: string,
  mode: 'behind' | 'awaited',
  roundGapMs: number,
) {
  await store.startRun({
    runId,
    sessionId: 'bench',
    enterpriseId: 'E1001',
    query: 'E1001 订单失败',
    continueSession: false,
  });
  const begin = performance.now();
  for (let round = 1; round <= ROUNDS; round += 1) {
    if (roundGapMs > 0) await new Promise((resolve) => setTimeout(resolve, roundGapMs));
    await store.onModelStep(stepEvent(runId, round));
    if (mode === 'awaited') await store.flush();
    if (round < ROUNDS) {
      await store.onToolInvocation(toolEvent(runId, `call_${round}`, { stepNumber: round }));
      if (mode === 'awaited') await store.flush();
    }
  }
  const lastEvent = performance.now();
  await store.flush();
  const end = performance.now();
  await store.completeRun(runId, publishedOutcome());
  return { total: end - begin, flushAfterLast: end - lastEvent };
}

export async function benchAuditStore(): Promise<void> {
  const engine = await startDynamoDbLocal();
  const counting = countingClient(engine.endpoint);
  try {
    await ensureDiagnosisTable(counting.client, 'bench');
    const store = createDynamoStores({ client: counting.client, tableName: 'bench' });
    for (let run = 0; run < 3; run += 1) await auditRun(store, `warm-${run}`, 'behind', 0);

    const behind: number[] = [];
    const awaited: number[] = [];
    for (let run = 0; run < RUNS; run += 1) {
      behind.push((await auditRun(store, `behind-${run}`, 'behind', 0)).total);
      awaited.push((await auditRun(store, `awaited-${run}`, 'awaited', 0)).total);
    }
    const flushes: number[] = [];
    for (let run = 0; run < RUNS; run += 1)
      flushes.push((await auditRun(store, `paced-${run}`, 'behind', 20)).flushAfterLast);

    counting.reset();
    await auditRun(store, 'counted', 'behind', 0);
    const items = ROUNDS * 2 + (ROUNDS - 1);
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
    console.log(`\n## audit store on DynamoDB Local (${ROUNDS}-round run: ${items} audit items; median of ${RUNS})`);
    console.log(
      `write-behind ${median(behind).toFixed(1)} ms   awaited one by one ${median(awaited).toFixed(1)} ms   ratio ${(median(awaited) / median(behind)).toFixed(1)}x`,
    );
    console.log(
      `flush() after the last event, rounds 20 ms apart: median ${median(flushes).toFixed(2)} ms   max ${Math.max(...flushes).toFixed(2)} ms`,
    );
    const requests = counting.requests();
    console.log(
      `DynamoDB requests per run ${requests} for ${items} audit items + the run item   (target ≤ ${items + 2}: ${requests <= items + 2 ? 'met' : 'MISSED'})`,
    );
  } finally {
    counting.client.destroy();
    await engine.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchAuditStore();
