import { isEnterpriseId, isRunId } from '@diagnosis/core/ids';
import {
  CliError,
  type Command,
  EXIT,
  type OptionSpec,
  printable,
  RUN_ID_FORM,
  usageError,
  wholeNumberOption,
} from '../command-line.ts';
import { STORE_SETTINGS } from '../setting-keys.ts';

const LIMIT: OptionSpec = {
  name: 'limit',
  type: 'string',
  value: '<n>',
  description: 'list: at most n',
  default: '20',
  range: [1, 50],
};

/**
 * `diagnosis memory list --enterprise E1001` and `diagnosis memory forget <runId> --enterprise E1001`: an enterprise's
 * past incidents in the table (the local one by default), as `GET` and `DELETE /enterprises/{id}/past-incidents`
 * show and forget them. Every read names the enterprise: nothing of another is listed.
 */
export const memoryCommand: Command = {
  name: 'memory',
  summary: "list an enterprise's past incidents (rated runs) or forget one",
  synopsis: 'list|forget [<runId>] --enterprise <id> [--limit <n>] [--json]',
  description: [
    'A run rated CORRECT or PARTIALLY_CORRECT is remembered as a past incident of its enterprise: a later run’s',
    'lookup_knowledge returns it, marked, as a lead to check with today’s logs and data, never as evidence. `list`',
    'shows the newest first; `forget` removes one for good (a later rating cannot bring it back). A WRONG or',
    'UNHELPFUL rating retracts one the same way.',
  ],
  arguments: [
    ['list', 'the enterprise’s past incidents, newest first'],
    ['forget <runId>', 'forget the past incident of that run'],
  ],
  settings: STORE_SETTINGS,
  options: [
    { name: 'enterprise', type: 'string', value: '<id>', description: 'the enterprise (required)' },
    LIMIT,
    { name: 'json', type: 'boolean', description: 'print the list as JSON' },
  ],
  examples: ['diagnosis memory list --enterprise E1001', 'diagnosis memory forget 01KB3… --enterprise E1001'],
  exitCodes: [
    [EXIT.OK, 'listed, or forgotten'],
    [EXIT.NOT_FOUND, 'forget: the enterprise has no past incident of that run'],
    [EXIT.USAGE, 'bad usage: no or a bad subcommand, enterprise id, run id or limit'],
    [EXIT.UNAVAILABLE, 'no DynamoDB (Java 17+ starts DynamoDB Local), or no such table at DYNAMODB_ENDPOINT'],
  ],
  async run({ values, positionals }, io) {
    const [action, runId, extra] = positionals;
    if (action !== 'list' && action !== 'forget') throw usageError('diagnosis memory list|forget …');
    const enterpriseId = values.enterprise;
    if (typeof enterpriseId !== 'string' || !isEnterpriseId(enterpriseId)) {
      throw usageError('--enterprise <id> is required (an enterprise id such as E1001)');
    }
    if (action === 'forget' && (runId === undefined || !isRunId(runId))) {
      throw usageError(`forget needs a run id (${RUN_ID_FORM})`);
    }
    if ((action === 'list' && runId !== undefined) || extra !== undefined) {
      throw usageError(`unexpected argument '${printable(extra ?? runId ?? '')}'`);
    }
    const limit = wholeNumberOption(LIMIT, values.limit) as number;
    const { createDynamoPastIncidentStore } = await import('@diagnosis/core/store');
    const { startLocalRuntime } = await import('../local/local-runtime.ts');
    const runtime = await startLocalRuntime(io.env, (line) => io.stderr(`${line}\n`));
    try {
      const incidents = createDynamoPastIncidentStore({ client: runtime.client, tableName: runtime.tableName });
      if (action === 'forget') {
        const forgotten = await incidents.retract(enterpriseId, runId as string, 'FORGOTTEN', new Date().toISOString());
        if (!forgotten) throw new CliError(EXIT.NOT_FOUND, `${enterpriseId} has no past incident of run ${runId}`);
        io.stdout(`run ${runId}: forgotten; ${enterpriseId}'s later runs will not be shown it\n`);
        return EXIT.OK;
      }
      const { incidents: listed } = await incidents.list(enterpriseId, { limit, now: Date.now() });
      if (values.json === true) {
        io.stdout(
          `${JSON.stringify(
            listed.map(({ enterpriseId: _, ...incident }) => incident),
            null,
            2,
          )}\n`,
        );
      } else if (listed.length === 0) {
        io.stdout(`${enterpriseId}: no past incidents\n`);
      } else {
        io.stdout(`${memoryRow(['DIAGNOSED (UTC)', 'RATING', 'RUN', 'CONCLUSION'])}\n`);
        for (const incident of listed) {
          const diagnosed = incident.occurredAt.slice(0, 16).replace('T', ' ');
          const conclusion = printable(incident.conclusion).slice(0, 80);
          io.stdout(`${memoryRow([diagnosed, incident.rating, incident.runId, conclusion])}\n`);
        }
      }
      return EXIT.OK;
    } finally {
      await runtime.stop();
    }
  },
};

/** One row of `memory list`, its header's included: the columns aligned (a run id is 26 characters). */
function memoryRow([diagnosed, rating, runId, conclusion]: readonly [string, string, string, string]): string {
  return `${diagnosed.padEnd(16)}  ${rating.padEnd(17)}  ${runId.padEnd(26)}  ${conclusion}`;
}
