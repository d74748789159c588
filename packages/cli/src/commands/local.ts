import { CliError, type Command, EXIT, printable, usageError } from '../command-line.ts';
import { STORE_SETTINGS } from '../setting-keys.ts';

/**
 * `diagnosis local status|stop`: the data folder's shared DynamoDB Local (started by the first command that needs
 * it and left running, so later commands answer at once): whether it runs, and stopping it.
 */
export const localCommand: Command = {
  name: 'local',
  summary: "show or stop this data folder's DynamoDB Local",
  synopsis: 'status | stop',
  description: [
    'The first local command on a data folder (DIAGNOSIS_LOCAL_DATA, default .data) starts DynamoDB Local for it and',
    'leaves it running, found by the next commands through .data/dynamodb/engine.json, so `runs`, `trace` and',
    '`cancel` answer without starting Java. `status` says whether it runs; `stop` stops it (the data stays on disk).',
  ],
  arguments: [['status | stop', 'what to do']],
  options: [],
  examples: ['diagnosis local status', 'diagnosis local stop'],
  exitCodes: [
    [EXIT.OK, 'status: it runs (its endpoint and pid printed); stop: stopped, or nothing to stop'],
    [EXIT.NOT_FOUND, 'status: no DynamoDB Local runs for this data folder'],
    [EXIT.USAGE, 'bad usage: neither status nor stop, or an unknown option'],
    [EXIT.UNAVAILABLE, 'status: its engine file names a DynamoDB Local that does not answer'],
  ],
  settings: STORE_SETTINGS.filter((key) => key === 'DIAGNOSIS_LOCAL_DATA'),
  async run({ positionals }, io) {
    const action = positionals[0];
    if (positionals.length !== 1 || (action !== 'status' && action !== 'stop')) {
      throw usageError(`expected status or stop, not '${printable(positionals.join(' '))}'`);
    }
    const { localDataDir } = await import('../local/local-data.ts');
    const { EngineNotAnswering, findEngine, stopEngine } = await import('../local/local-engine.ts');
    const dataDir = localDataDir(io.env);
    if (action === 'status') {
      const engine = await findEngine(dataDir).catch((error: unknown) => {
        if (error instanceof EngineNotAnswering) throw new CliError(EXIT.UNAVAILABLE, error.message);
        throw error;
      });
      if (engine === undefined) {
        io.stdout(`no DynamoDB Local runs for ${dataDir}\n`);
        return EXIT.NOT_FOUND;
      }
      io.stdout(`DynamoDB Local for ${dataDir}: ${engine.endpoint} (pid ${engine.pid}, since ${engine.startedAt})\n`);
      return EXIT.OK;
    }
    const stopped = await stopEngine(dataDir);
    io.stdout(
      stopped === undefined
        ? `no DynamoDB Local runs for ${dataDir}: nothing to stop\n`
        : `stopped DynamoDB Local for ${dataDir} (pid ${stopped.pid}); the data stays in ${dataDir}/dynamodb\n`,
    );
    return EXIT.OK;
  },
};
