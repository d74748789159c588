import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DiagnosisServiceDeps, EvidenceAdapters } from '@diagnosis/core';
import { type DiagnosisSettings, limitsOf, type StoreSettings } from '@diagnosis/core/config';
import { createEvidenceAdapters } from '@diagnosis/core/evidence';
import { createDynamoAuditStore, type DynamoAuditStore } from '@diagnosis/core/store';

/**
 * A DynamoDB client for the configured table. Placeholder credentials only for a DynamoDB Local on this machine; any
 * other endpoint (a VPC endpoint, say) uses the function's own credentials.
 */
export function createDynamoClient(settings: StoreSettings): DynamoDBClient {
  const endpoint = settings.DYNAMODB_ENDPOINT;
  if (endpoint === undefined) return new DynamoDBClient({ maxAttempts: 3 });
  const local = /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?\/?$/.test(endpoint);
  return new DynamoDBClient({
    endpoint,
    maxAttempts: 3,
    ...(local
      ? { region: process.env.AWS_REGION ?? 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
      : {}),
  });
}

/** The table's store on a client of its own: the cold start of the functions that only read, start or cancel runs. */
export function createTableStore(settings: StoreSettings): DynamoAuditStore {
  return createDynamoAuditStore({ client: createDynamoClient(settings), tableName: settings.DIAGNOSIS_TABLE_NAME });
}

/**
 * Everything a diagnosis needs, built once per cold start: the DynamoDB client, the model provider (the agent's model
 * and the SemanticGuard's judge), the adapters
 * (knowledge index and MySQL catalog loaded and validated here). Each invocation gets its own store object (its own
 * write-behind queue) on the shared client.
 */
export async function buildDiagnosisDependencies(
  settings: DiagnosisSettings,
  dynamo: DynamoDBClient = createDynamoClient(settings),
  /** Adapters built by the caller from the same settings (a local runner that must close its MySQL pool). */
  prebuiltEvidence?: EvidenceAdapters,
): Promise<DiagnosisServiceDeps> {
  const provider = createOpenAICompatible({
    name: 'deepseek',
    baseURL: settings.DIAGNOSIS_MODEL_BASE_URL,
    apiKey: settings.DIAGNOSIS_MODEL_API_KEY,
    includeUsage: true,
  });
  const evidence = prebuiltEvidence ?? (await createEvidenceAdapters(settings)).evidence;
  return {
    model: provider.chatModel(settings.DIAGNOSIS_MODEL_ID),
    // NOTE: the judge is its own model object (even with the same id): a separate call that never sees the agent's
    // conversation, only the query, the Draft and the verified evidence.
    semanticGuard: {
      mode: settings.SEMANTIC_GUARD,
      model: provider.chatModel(settings.SEMANTIC_GUARD_MODEL_ID ?? settings.DIAGNOSIS_MODEL_ID),
    },
    evidence,
    createStore: () =>
      createDynamoAuditStore({
        client: dynamo,
        tableName: settings.DIAGNOSIS_TABLE_NAME,
        retentionDays: settings.RETENTION_DAYS,
        reasoningRetentionDays: settings.REASONING_RETENTION_DAYS,
      }),
    limits: limitsOf(settings),
    timeZone: settings.DIAGNOSIS_TIMEZONE,
    flushReserveMs: settings.FLUSH_RESERVE_MS,
    cancelPollMs: settings.DIAGNOSIS_CANCEL_POLL_MS,
  };
}
