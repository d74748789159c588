import { isRunId } from '@diagnosis/core/ids';
import { CliError, type Command, EXIT, printable, RUN_ID_FORM, usageError } from '../command-line.ts';
import { statusWord } from '../render/outcome-words.ts';
import { STORE_SETTINGS } from '../setting-keys.ts';

/**
 * `diagnosis cancel <runId>`: cancels a run in the local table (the one a diagnosis in another terminal writes to;
 * any endpoint with DYNAMODB_ENDPOINT and DIAGNOSIS_TABLE_NAME). A QUEUED run ends CANCELLED at once; a RUNNING one
 * is asked to stop and its runner ends it CANCELLED within a few seconds; an ended run is left as it is.
 */
export const cancelCommand: Command = {
  name: 'cancel',
  summary: 'cancel a queued or running run',
  synopsis: '<runId>',
  description: [
    'Asks a run to stop. A QUEUED run ends CANCELLED at once; a RUNNING one (a diagnosis in another terminal) reads',
    'the flag within DIAGNOSIS_CANCEL_POLL_MS (2 s) and ends CANCELLED, its audit flushed; an ended run is left as it is.',
  ],
  arguments: [['<runId>', 'the run to cancel']],
  options: [],
  examples: ['diagnosis cancel 01KB3…'],
  // NOTE: exit 0 also for a run that is CANCELLED already (cancelling twice is not a failure: scripts may repeat it).
  exitCodes: [
    [EXIT.OK, 'asked to stop, cancelled, or CANCELLED already'],
    [EXIT.FALLBACK, 'nothing to cancel: the run had already ended PUBLISHED, FALLBACK or FAILED (printed)'],
    [EXIT.NOT_FOUND, 'no run with that id in the table'],
    [EXIT.USAGE, 'bad usage: no run id, or not a run id'],
    [EXIT.UNAVAILABLE, 'no DynamoDB (Java 17+ starts DynamoDB Local), or no such table at DYNAMODB_ENDPOINT'],
  ],
  settings: STORE_SETTINGS,
  async run({ positionals }, io) {
    const runId = positionals[0];
    if (runId === undefined) throw usageError('no run id: diagnosis cancel <runId>');
    if (positionals.length > 1) throw usageError(`one run id only, not also '${printable(positionals[1] ?? '')}'`);
    if (!isRunId(runId)) throw usageError(`'${printable(runId)}' is not a run id (${RUN_ID_FORM})`);
    const { cancelDiagnosis } = await import('@diagnosis/core');
    const { createDynamoRunStore } = await import('@diagnosis/core/store');
    const { startLocalRuntime } = await import('../local/local-runtime.ts');
    const runtime = await startLocalRuntime(io.env, (line) => io.stderr(`${line}\n`));
    try {
      const store = createDynamoRunStore({ client: runtime.client, tableName: runtime.tableName });
      const before = await store.getRun(runId);
      const run = before === null ? null : await cancelDiagnosis(runId, { store });
      if (run === null) throw new CliError(EXIT.NOT_FOUND, `no run ${runId} in table ${runtime.tableName}`);
      if (run.status === 'RUNNING') {
        io.stdout(`run ${runId}: asked to stop; it ends CANCELLED within a few seconds\n`);
        return EXIT.OK;
      }
      if (run.status === 'CANCELLED' && before?.status === 'QUEUED') {
        io.stdout(`run ${runId}: cancelled (it was QUEUED: it ends CANCELLED now)\n`);
        return EXIT.OK;
      }
      // NOTE: an ended run is left as it is: there was nothing to cancel (a run cancelled earlier still exits 0).
      io.stdout(`run ${runId}: nothing to cancel, the run had already ended ${statusWord(run.status)}\n`);
      return run.status === 'CANCELLED' ? EXIT.OK : EXIT.FALLBACK;
    } finally {
      await runtime.stop();
    }
  },
};
