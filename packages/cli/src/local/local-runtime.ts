/**
 * The embedded defaults of a local run: DynamoDB Local persisted under `.data/dynamodb` (the folder's shared engine,
 * see local-engine.ts, unless DYNAMODB_ENDPOINT names one), the table created when missing, and the example world's
 * knowledge, logs and catalog.
 * Nothing here writes the process environment: the defaults are returned as settings for the composition root.
 */

import { resolve } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { dynamoRequestHandler, ensureDiagnosisTable } from '@diagnosis/core/store';
import { CliError, EXIT } from '../command-line.ts';
import { localDataDir, REPO_ROOT } from './local-data.ts';
import { acquireEngine, EngineNotAnswering } from './local-engine.ts';
import { checkStoreSettings } from './local-settings.ts';

const DEFAULT_TABLE_NAME = 'diagnosis-local';

type Environment = Readonly<Record<string, string | undefined>>;

export interface LocalRuntime {
  endpoint: string;
  tableName: string;
  client: DynamoDBClient;
  /** The settings of this machine's embedded defaults (table, endpoint, the example world's folders). */
  defaults: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * The local data's engine: the one this data folder already runs (started by an earlier command, found through
 * `.data/dynamodb/engine.json`), else one started now and left running for the next commands (`diagnosis local stop`
 * stops it). A command never stops the shared engine itself.
 */
async function localEngine(env: Environment, say: (line: string) => void): Promise<{ endpoint: string }> {
  const dataDir = localDataDir(env);
  try {
    const { note } = await acquireEngine(dataDir, (started) =>
      say(
        `started DynamoDB Local for ${dataDir} (pid ${started.pid}); it keeps running for the next commands: diagnosis local stop`,
      ),
    );
    return { endpoint: note.endpoint };
  } catch (error) {
    if (error instanceof EngineNotAnswering) {
      throw new CliError(
        EXIT.UNAVAILABLE,
        `${error.message}: try again, or restart it with diagnosis local stop (the data stays)`,
      );
    }
    throw new CliError(
      EXIT.UNAVAILABLE,
      'DynamoDB Local could not start: is Java 17+ on the PATH? (or name a running DynamoDB with DYNAMODB_ENDPOINT)',
    );
  }
}

const LOOPBACK = /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?\/?$/;

function localClient(endpoint: string, maxAttempts: number): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    maxAttempts,
    requestHandler: dynamoRequestHandler(endpoint),
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}

/**
 * Starts (or finds) the table a local command works on. `DYNAMODB_ENDPOINT` names any DynamoDB (a loopback one gets
 * placeholder credentials; any other uses the usual AWS credential chain and region), `DIAGNOSIS_TABLE_NAME` any
 * table. The table is created when missing only on a loopback DynamoDB (this machine's); elsewhere it must exist.
 */
export async function startLocalRuntime(
  env: Environment,
  say: (line: string) => void = () => undefined,
): Promise<LocalRuntime> {
  // NOTE: the table name and the endpoint are checked before any engine starts: a typo costs no Java start.
  checkStoreSettings(env);
  const given = env.DYNAMODB_ENDPOINT;
  const engine = given === undefined || given === '' ? await localEngine(env, say) : undefined;
  const endpoint = engine?.endpoint ?? (given as string);
  const tableName = env.DIAGNOSIS_TABLE_NAME || DEFAULT_TABLE_NAME;
  const client = LOOPBACK.test(endpoint)
    ? localClient(endpoint, 3)
    : new DynamoDBClient({ endpoint, maxAttempts: 3, requestHandler: dynamoRequestHandler(endpoint) });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    client.destroy();
  };
  try {
    if (LOOPBACK.test(endpoint)) await ensureDiagnosisTable(client, tableName);
    else await client.send(new ListTablesCommand({ Limit: 1 }));
  } catch (error) {
    await stop();
    // NOTE: the core's index (the model stack) is loaded only on this failure, never on a read command's way.
    const { safeErrorName } = await import('@diagnosis/core');
    // NOTE: the host only: an endpoint URL may carry credentials in its user info.
    throw new CliError(
      EXIT.UNAVAILABLE,
      `no DynamoDB answered at ${new URL(endpoint).host} (${safeErrorName(error)}): is it running? check DYNAMODB_ENDPOINT`,
    );
  }
  refuseMissingTable(client, tableName, new URL(endpoint).host);
  return {
    endpoint,
    tableName,
    client,
    defaults: {
      DIAGNOSIS_TABLE_NAME: tableName,
      DYNAMODB_ENDPOINT: endpoint,
      KNOWLEDGE_DIR: resolve(REPO_ROOT, 'examples/knowledge'),
      LOGS_DIR: resolve(REPO_ROOT, 'examples/logs'),
      MYSQL_CATALOG_PATH: resolve(REPO_ROOT, 'examples/mysql/catalog.json'),
    },
    stop,
  };
}

/**
 * A table missing at a DynamoDB that is not this machine's (nothing creates it there) is a setting to check: every
 * request of the command's client that meets it fails with one line naming DIAGNOSIS_TABLE_NAME (exit 69), never an
 * unplanned error. Added after the table check, which is answered without it.
 */
function refuseMissingTable(client: DynamoDBClient, tableName: string, host: string): void {
  client.middlewareStack.add(
    (next) => async (args) => {
      try {
        return await next(args);
      } catch (error) {
        if ((error as { name?: unknown } | null)?.name !== 'ResourceNotFoundException') throw error;
        throw new CliError(
          EXIT.UNAVAILABLE,
          `table ${tableName} does not exist at ${host}: check DIAGNOSIS_TABLE_NAME`,
        );
      }
    },
    { step: 'initialize', name: 'missingTableRefusal' },
  );
}
