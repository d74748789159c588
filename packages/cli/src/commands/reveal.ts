import { isRunId } from '@diagnosis/core/ids';
import { CliError, type Command, EXIT, printable, RUN_ID_FORM, usageError } from '../command-line.ts';
import { STORE_SETTINGS } from '../setting-keys.ts';

/**
 * `diagnosis reveal <runId>`: the real values behind a run's pseudonyms, read from the run's own pseudonym partition
 * of the table and opened with the masking secret (MASKING_SECRET, or the public development key of local runs).
 * The local counterpart of `GET /runs/{runId}/reveal`: whoever can read this table is its caller.
 */
export const revealCommand: Command = {
  name: 'reveal',
  summary: "the real values behind a run's pseudonyms (<email:k3f2a> → …)",
  synopsis: '<runId> [--json]',
  description: [
    'Reads the pseudonym map of a run (its PSEUDONYMS#<runId> partition; the local table by default, any table with',
    'DYNAMODB_ENDPOINT and DIAGNOSIS_TABLE_NAME), opens it with MASKING_SECRET (unset: the development key that local',
    'runs mask with) and prints each pseudonym with its kind and value. Secrets were redacted, not pseudonymised:',
    'they are in no map and cannot be revealed.',
  ],
  arguments: [['<runId>', 'the run, as printed by diagnose, demo and runs']],
  options: [{ name: 'json', type: 'boolean', description: 'print the entries as JSON' }],
  examples: ['diagnosis reveal 01KB3…'],
  exitCodes: [
    [EXIT.OK, 'printed (a run that showed none says so)'],
    [EXIT.NOT_FOUND, 'no run with that id in the table'],
    [EXIT.USAGE, 'bad usage: no run id, or not a run id'],
    [EXIT.UNAVAILABLE, 'no DynamoDB, no such table at DYNAMODB_ENDPOINT, or a map this MASKING_SECRET cannot open'],
  ],
  settings: ['MASKING_SECRET', ...STORE_SETTINGS],
  async run({ values, positionals }, io) {
    const runId = positionals[0];
    if (runId === undefined) throw usageError('no run id: diagnosis reveal <runId> (diagnosis runs lists them)');
    if (positionals.length > 1) throw usageError(`one run id only, not also '${printable(positionals[1] ?? '')}'`);
    if (!isRunId(runId)) throw usageError(`'${printable(runId)}' is not a run id (${RUN_ID_FORM})`);
    const { DEVELOPMENT_MASKING_SECRET, openPseudonymBatches } = await import('@diagnosis/core');
    const { createDynamoRunStore } = await import('@diagnosis/core/store');
    const { startLocalRuntime } = await import('../local/local-runtime.ts');
    const runtime = await startLocalRuntime(io.env);
    try {
      const store = createDynamoRunStore({ client: runtime.client, tableName: runtime.tableName });
      if ((await store.getRun(runId)) === null) {
        throw new CliError(EXIT.NOT_FOUND, `no run ${runId} in table ${runtime.tableName}`);
      }
      const batches = [];
      let cursor: string | undefined;
      do {
        const page = await store.listPseudonyms(runId, cursor === undefined ? {} : { cursor });
        batches.push(...page.records);
        cursor = page.cursor ?? undefined;
      } while (cursor !== undefined);
      let entries: { token: string; kind: string; value: string }[];
      try {
        entries = openPseudonymBatches(io.env.MASKING_SECRET ?? DEVELOPMENT_MASKING_SECRET, runId, batches);
      } catch {
        throw new CliError(EXIT.UNAVAILABLE, 'the pseudonym map does not open with this MASKING_SECRET');
      }
      if (values.json === true) {
        io.stdout(
          `${JSON.stringify(
            entries.map(({ token, kind, value }) => ({ token, kind, value })),
            null,
            2,
          )}\n`,
        );
      } else if (entries.length === 0) {
        io.stdout(`run ${runId} showed no pseudonyms\n`);
      } else {
        const width = Math.max(...entries.map((entry) => entry.token.length));
        for (const entry of entries) io.stdout(`${entry.token.padEnd(width)}  ${printable(entry.value)}\n`);
      }
      return EXIT.OK;
    } finally {
      await runtime.stop();
    }
  },
};
