/**
 * `npm run cancel -- <runId>`: cancels a run in the local table (the one a diagnosis in another terminal writes to;
 * any endpoint with DYNAMODB_ENDPOINT and DIAGNOSIS_TABLE_NAME). A QUEUED run ends CANCELLED at once; a RUNNING one
 * is asked to stop and its runner ends it CANCELLED within a few seconds; an ended run is left as it is.
 * Exit codes: 0 cancelled or asked to stop, 1 unknown run or bad usage, 2 the run had already ended.
 */
import { cancelDiagnosis, isRunId } from '@diagnosis/core';
import { createDynamoAuditStore } from '@diagnosis/core/store';
import { startLocalRuntime } from './local-runtime.ts';

async function main(args: string[]): Promise<number> {
  const runId = args[0];
  if (args.length !== 1 || runId === undefined || !isRunId(runId)) {
    process.stderr.write('usage: npm run cancel -- <runId>\n');
    return 1;
  }
  const runtime = await startLocalRuntime();
  try {
    const store = createDynamoAuditStore({ client: runtime.client, tableName: runtime.tableName });
    const run = await cancelDiagnosis(runId, { store });
    if (run === null) {
      process.stderr.write(`no run ${runId} in table ${runtime.tableName}\n`);
      return 1;
    }
    if (run.status === 'RUNNING') {
      process.stdout.write(`run ${runId}: asked to stop; it ends CANCELLED within a few seconds\n`);
      return 0;
    }
    process.stdout.write(`run ${runId}: ${run.status}\n`);
    return run.status === 'CANCELLED' ? 0 : 2;
  } finally {
    await runtime.stop();
  }
}

process.exitCode = await main(process.argv.slice(2));
