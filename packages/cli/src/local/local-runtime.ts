/**
 * The embedded defaults of a local run: DynamoDB Local persisted under `.data/dynamodb` (started unless
 * DYNAMODB_ENDPOINT names one), the table created when missing, and the example world's knowledge, logs and catalog.
 * Nothing here writes the process environment: the defaults are returned as settings for the composition root.
 */

import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { safeErrorName } from '@diagnosis/core';
import { ensureDiagnosisTable } from '@diagnosis/core/store';
import { startDynamoDbLocal } from '@diagnosis/devkit';
import { CliError, EXIT } from '../command-line.ts';

export const REPO_ROOT = resolve(import.meta.dirname, '../../../..');
export const DEFAULT_TABLE_NAME = 'diagnosis-local';

type Environment = Readonly<Record<string, string | undefined>>;

export interface LocalRuntime {
  endpoint: string;
  tableName: string;
  client: DynamoDBClient;
  /** The settings of this machine's embedded defaults (table, endpoint, the example world's folders). */
  defaults: Record<string, string>;
  stop(): Promise<void>;
}

/** Where local runs keep their data (DIAGNOSIS_LOCAL_DATA, else `.data` in the project). */
export function localDataDir(env: Environment): string {
  return resolve(env.DIAGNOSIS_LOCAL_DATA || resolve(REPO_ROOT, '.data'));
}

/**
 * The local data's engine: one that another local command (a diagnosis in another terminal) already runs on this
 * data folder is reused — two engines on one SQLite file would not see each other's writes — else a new one, whose
 * endpoint is written down for the others until it stops.
 */
async function localEngine(env: Environment): Promise<{ endpoint: string; stop(): Promise<void> }> {
  const dbPath = resolve(localDataDir(env), 'dynamodb');
  const file = resolve(dbPath, 'engine.json');
  const running = await runningEngine(file);
  if (running !== undefined) return { endpoint: running, stop: async () => undefined };
  let engine: Awaited<ReturnType<typeof startDynamoDbLocal>>;
  try {
    engine = await startDynamoDbLocal({ dbPath });
  } catch {
    throw new CliError(
      EXIT.UNAVAILABLE,
      'DynamoDB Local could not start: is Java 17+ on the PATH? (or name a running DynamoDB with DYNAMODB_ENDPOINT)',
    );
  }
  writeFileSync(file, JSON.stringify({ endpoint: engine.endpoint, pid: process.pid }));
  return {
    endpoint: engine.endpoint,
    async stop() {
      rmSync(file, { force: true });
      await engine.stop();
    },
  };
}

async function runningEngine(file: string): Promise<string | undefined> {
  let noted: { endpoint?: unknown; pid?: unknown };
  try {
    noted = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
  if (typeof noted.endpoint !== 'string' || !/^http:\/\/127\.0\.0\.1:\d+$/.test(noted.endpoint)) return undefined;
  if (typeof noted.pid !== 'number' || !processAlive(noted.pid)) return undefined;
  const client = localClient(noted.endpoint, 1);
  try {
    await client.send(new ListTablesCommand({ Limit: 1 }));
    return noted.endpoint;
  } catch {
    return undefined;
  } finally {
    client.destroy();
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const LOOPBACK = /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?\/?$/;

function localClient(endpoint: string, maxAttempts: number): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    maxAttempts,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}

/**
 * Starts (or finds) the table a local command works on. `DYNAMODB_ENDPOINT` names any DynamoDB (a loopback one gets
 * placeholder credentials; any other uses the usual AWS credential chain and region), `DIAGNOSIS_TABLE_NAME` any
 * table. The table is created when missing only on a loopback DynamoDB (this machine's); elsewhere it must exist.
 */
export async function startLocalRuntime(env: Environment): Promise<LocalRuntime> {
  const given = env.DYNAMODB_ENDPOINT;
  const engine = given === undefined || given === '' ? await localEngine(env) : undefined;
  const endpoint = engine?.endpoint ?? (given as string);
  if (!URL.canParse(endpoint)) {
    await engine?.stop();
    throw new CliError(EXIT.CONFIG, 'DYNAMODB_ENDPOINT is not a URL');
  }
  const tableName = env.DIAGNOSIS_TABLE_NAME || DEFAULT_TABLE_NAME;
  const client = LOOPBACK.test(endpoint) ? localClient(endpoint, 3) : new DynamoDBClient({ endpoint, maxAttempts: 3 });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    client.destroy();
    await engine?.stop();
  };
  try {
    if (LOOPBACK.test(endpoint)) await ensureDiagnosisTable(client, tableName);
    else await client.send(new ListTablesCommand({ Limit: 1 }));
  } catch (error) {
    await stop();
    // NOTE: the host only: an endpoint URL may carry credentials in its user info.
    throw new CliError(
      EXIT.UNAVAILABLE,
      `no DynamoDB answered at ${new URL(endpoint).host} (${safeErrorName(error)}): is it running? check DYNAMODB_ENDPOINT`,
    );
  }
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
