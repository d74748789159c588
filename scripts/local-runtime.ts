/**
 * The embedded defaults of a local run: DynamoDB Local persisted under `.data/dynamodb` (started unless
 * DYNAMODB_ENDPOINT names one), the table created when missing, and the example world's knowledge, logs and catalog.
 */
import { resolve } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
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

export async function startLocalRuntime(): Promise<LocalRuntime> {
  const given = process.env.DYNAMODB_ENDPOINT;
  const engine =
    given === undefined || given === ''
      ? await startDynamoDbLocal({ dbPath: resolve(localDataDir(), 'dynamodb') })
      : undefined;
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
