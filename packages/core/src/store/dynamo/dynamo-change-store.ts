import { type DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { CHANGE_LIMITS, type ChangeStore, changeMatches, type StoredChange } from '../change-store.ts';
import { changeItems, changeOf, changePartitionKey, changeSortKeyFrom, changeSortKeyTo } from '../items/change-item.ts';

export interface DynamoChangeStoreOptions {
  client: DynamoDBClient;
  tableName: string;
  /** Days a change is kept after it landed (`CHANGE_RETENTION_DAYS`); only `record` needs it. */
  retentionDays?: number;
}

/**
 * The changes on the diagnosis table: one partition per enterprise (`CHANGES#<enterpriseId>`). `record` puts the
 * change and its claim in one transaction, each conditional on not existing, so a redelivery is refused by the claim
 * and nothing of it is written. `list` reads the range's newest items (one bounded Query, sort keys from the range's
 * start to its end), filters them exactly, and returns the newest that match.
 */
export function createDynamoChangeStore(options: DynamoChangeStoreOptions): ChangeStore {
  let client: DynamoDBDocumentClient | undefined;
  const documents = () =>
    (client ??= DynamoDBDocumentClient.from(options.client, { marshallOptions: { removeUndefinedValues: true } }));
  const { tableName } = options;
  const retentionDays = options.retentionDays ?? CHANGE_LIMITS.retentionDays;

  return {
    async record(change) {
      const items = changeItems(change, retentionDays);
      const put = (Item: Record<string, unknown>) => ({
        Put: { TableName: tableName, Item, ConditionExpression: 'attribute_not_exists(pk)' },
      });
      try {
        await documents().send(new TransactWriteCommand({ TransactItems: [put(items.claim), put(items.change)] }));
        return 'STORED';
      } catch (error) {
        // NOTE: the claim is the first item: its condition failing means the change was recorded before.
        if (
          error instanceof TransactionCanceledException &&
          error.CancellationReasons?.some((reason) => reason.Code === 'ConditionalCheckFailed')
        ) {
          return 'DUPLICATE';
        }
        throw error;
      }
    },

    async list(enterpriseId, query) {
      const pk = changePartitionKey(enterpriseId);
      const stored: StoredChange[] = [];
      let startKey: Record<string, unknown> | undefined;
      do {
        const result = await documents().send(
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
            ExpressionAttributeValues: {
              ':pk': pk,
              ':from': changeSortKeyFrom(query.fromMs),
              ':to': changeSortKeyTo(query.toMs),
            },
            ScanIndexForward: false,
            Limit: CHANGE_LIMITS.scan - stored.length,
            ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey }),
          }),
          query.signal === undefined ? {} : { abortSignal: query.signal },
        );
        stored.push(...(result.Items ?? []).map((item) => changeOf(item, enterpriseId)));
        startKey = result.LastEvaluatedKey;
      } while (startKey !== undefined && stored.length < CHANGE_LIMITS.scan);
      const matching = stored.filter((change) => changeMatches(change, query));
      const limit = Math.max(1, Math.min(query.limit, CHANGE_LIMITS.rows));
      return { matched: matching.length, changes: matching.slice(0, limit) };
    },
  };
}
