/**
 * The embedded defaults of a local run: DynamoDB Local persisted under `.data/dynamodb` (started unless
 * DYNAMODB_ENDPOINT names one), the table created when missing, and the example world's knowledge, logs and catalog.
 */

import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { ensureDiagnosisTable } from '@diagnosis/core/store';
import { startDynamoDbLocal } from './dynamodb-local.ts';

export const REPO_ROOT = resolve(import.meta.dirname, '..');

export interface LocalRuntime {
  endpoint: string;
  tableName: string;
  client: DynamoDBClient;
  stop(): Promise<void>;
}

/** Where local runs keep their data (DIAGNOSIS_LOCAL_DATA, else `.data` in the project). */
export function localDataDir(): string {
  return resolve(process.env.DIAGNOSIS_LOCAL_DATA ?? resolve(REPO_ROOT, '.data'));
}

/**
 * The local data's engine: one that another local command (a diagnosis in another terminal) already runs on this
 * data folder is reused — two engines on one SQLite file would not see each other's writes — else a new one, whose
 * endpoint is written down for the others until it stops.
 */
async function localEngine(): Promise<{ endpoint: string; stop(): Promise<void> }> {
  const dbPath = resolve(localDataDir(), 'dynamodb');
  const file = resolve(dbPath, 'engine.json');
  const running = await runningEngine(file);
  if (running !== undefined) return { endpoint: running, stop: async () => undefined };
  const engine = await startDynamoDbLocal({ dbPath });
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
  const client = new DynamoDBClient({
    endpoint: noted.endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
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

export async function startLocalRuntime(): Promise<LocalRuntime> {
  const given = process.env.DYNAMODB_ENDPOINT;
  const engine = given === undefined || given === '' ? await localEngine() : undefined;
  const endpoint = engine?.endpoint ?? (given as string);
  const tableName = process.env.DIAGNOSIS_TABLE_NAME ?? 'diagnosis-local';
  // NOTE: placeholder credentials only for a DynamoDB Local on this machine; any other endpoint (real DynamoDB, say
  // https://dynamodb.eu-west-1.amazonaws.com) uses the usual AWS credential chain and region.
  const local = /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?\/?$/.test(endpoint);
  const client = new DynamoDBClient({
    endpoint,
    maxAttempts: 3,
    ...(local ? { region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
  });
  await ensureDiagnosisTable(client, tableName);
  const defaults: Record<string, string> = {
    DIAGNOSIS_TABLE_NAME: tableName,
    DYNAMODB_ENDPOINT: endpoint,
    KNOWLEDGE_DIR: resolve(REPO_ROOT, 'examples/knowledge'),
    LOGS_DIR: resolve(REPO_ROOT, 'examples/logs'),
    MYSQL_CATALOG_PATH: resolve(REPO_ROOT, 'examples/mysql/catalog.json'),
    // Powertools' logger and metrics then write through `console`, which the runner keeps off stdout (the answer's).
    POWERTOOLS_DEV: 'true',
  };
  for (const [key, value] of Object.entries(defaults)) {
    if (process.env[key] === undefined || process.env[key] === '' || key === 'DYNAMODB_ENDPOINT')
      process.env[key] = value;
  }
  let stopped = false;
  return {
    endpoint,
    tableName,
    client,
    async stop() {
      if (stopped) return;
      stopped = true;
      client.destroy();
      await engine?.stop();
    },
  };
}
