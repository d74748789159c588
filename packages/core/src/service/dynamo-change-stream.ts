/**
 * `@diagnosis/core/change-stream`: the change store on the diagnosis table and `query_logs` over an enterprise's
 * change stream (the service `changes`, each change placed by code), behind a subpath of their own and in neither
 * index, so the Diagnose function loads them on its first logs query, not at its cold start (with the change item's
 * codec they are about 6 KB of the code Diagnose would otherwise load before its first request: a bundler keeps a
 * module an index re-exports in the entry's chunks even when only a dynamic import uses it).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createDynamoChangeStore } from '../store/dynamo/dynamo-change-store.ts';
import type { EvidenceAdapter, LogsData, LogsInput } from '../tools/evidence-adapter.ts';
import { createChangeStreamLogs } from './change-stream-logs.ts';

export { createDynamoChangeStore, type DynamoChangeStoreOptions } from '../store/dynamo/dynamo-change-store.ts';
export {
  CHANGE_STREAM_SERVICE,
  type ChangeStreamFilter,
  type ChangeStreamLogsOptions,
  createChangeStreamLogs,
  parseChangeStreamService,
} from './change-stream-logs.ts';

/** `query_logs` that reads the run's enterprise's change stream from the table for the service `changes`. */
export function createDynamoChangeStreamLogs(options: {
  logs: EvidenceAdapter<LogsInput, LogsData>;
  client: DynamoDBClient;
  tableName: string;
}): EvidenceAdapter<LogsInput, LogsData> {
  return createChangeStreamLogs({
    logs: options.logs,
    changes: createDynamoChangeStore({ client: options.client, tableName: options.tableName }),
  });
}
