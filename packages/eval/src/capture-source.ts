import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { StoredRun } from '@diagnosis/core';
import {
  createDynamoFeedbackStore,
  createDynamoRunStore,
  isPublishedDiagnosis,
  runOf,
  sessionKey,
} from '@diagnosis/core/store';
import type { CaptureSource } from './capture-audit.ts';

/** Session index pages read when looking for a follow-up's previous turn, and their size. */
const PREVIOUS_PAGES = 8;
const PREVIOUS_PAGE_SIZE = 25;

/**
 * What `capture` reads, on a table: the run item (GetItem), its audit and reasoning partitions, its feedback
 * partition and the session index (Query) — nothing else is ever sent, so it can run with read-only credentials
 * against a deployed table.
 */
export function createCaptureSource(client: DynamoDBClient, tableName: string): CaptureSource {
  const store = createDynamoRunStore({ client, tableName });
  const feedback = createDynamoFeedbackStore({ client, tableName });
  const documents = DynamoDBDocumentClient.from(client);
  return {
    store,
    feedback,
    async findPreviousRun(run: StoredRun): Promise<StoredRun | null> {
      let startKey: Record<string, unknown> | undefined;
      for (let page = 0; page < PREVIOUS_PAGES; page += 1) {
        const result = await documents.send(
          new QueryCommand({
            TableName: tableName,
            IndexName: 'gsi1',
            KeyConditionExpression: 'gsi1pk = :session AND gsi1sk < :before',
            ExpressionAttributeValues: {
              ':session': sessionKey(run.enterpriseId, run.sessionId),
              ':before': `${run.createdAt}#${run.runId}`,
            },
            ScanIndexForward: false,
            Limit: PREVIOUS_PAGE_SIZE,
            ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey }),
          }),
        );
        for (const item of result.Items ?? []) {
          if (item.entity !== 'run') continue;
          const candidate = runOf(item);
          // NOTE: the key names the tenant already; the exact comparison is the second lock, as in findPreviousRun.
          if (candidate.enterpriseId !== run.enterpriseId || candidate.sessionId !== run.sessionId) continue;
          if (isPublishedDiagnosis(candidate)) return candidate;
        }
        if (result.LastEvaluatedKey === undefined) return null;
        startKey = result.LastEvaluatedKey;
      }
      return null;
    },
  };
}
