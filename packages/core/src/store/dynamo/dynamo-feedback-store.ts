import { ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { FEEDBACK_LIMITS, type FeedbackStore, type RunFeedback } from '../feedback-store.ts';
import { callerSortKeyPrefix, feedbackItem, feedbackOf, feedbackPartitionKey } from '../items/feedback-item.ts';

export interface DynamoFeedbackStoreOptions {
  client: DynamoDBClient;
  tableName: string;
  /** Days an entry is kept after its run was created (the run's own retention). */
  retentionDays?: number;
}

/** The feedback store on the diagnosis table: one partition per run (`FEEDBACK#<runId>`), conditional puts. */
export function createDynamoFeedbackStore(options: DynamoFeedbackStoreOptions): FeedbackStore {
  const documents = DynamoDBDocumentClient.from(options.client, { marshallOptions: { removeUndefinedValues: true } });
  const { tableName } = options;
  const retentionDays = options.retentionDays ?? 90;

  async function query(runId: string, prefix: string | null, limit: number): Promise<RunFeedback[]> {
    const entries: RunFeedback[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await documents.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: prefix === null ? 'pk = :pk' : 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: {
            ':pk': feedbackPartitionKey(runId),
            ...(prefix === null ? {} : { ':prefix': prefix }),
          },
          ConsistentRead: true,
          Limit: limit - entries.length,
          ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey }),
        }),
      );
      entries.push(...(page.Items ?? []).map(feedbackOf));
      startKey = page.LastEvaluatedKey;
    } while (startKey !== undefined && entries.length < limit);
    return entries;
  }

  return {
    listFeedback: (runId) => query(runId, null, FEEDBACK_LIMITS.storedPerRun),
    listCallerFeedback: (runId, callerKey) =>
      query(runId, callerSortKeyPrefix(callerKey), FEEDBACK_LIMITS.ratingsPerCaller),
    async putFeedback(entry, runCreatedAt) {
      try {
        await documents.send(
          new PutCommand({
            TableName: tableName,
            Item: feedbackItem(entry, runCreatedAt, retentionDays),
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
        return true;
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return false;
        throw error;
      }
    },
  };
}
