import { type DynamoDBDocumentClient, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { decodeCursor, encodeCursor } from '../page-cursor.ts';
import type { PageOptions } from '../run-store.ts';

/**
 * One page of a partition in key order, consistent, from the caller's cursor (checked: see `decodeCursor`). NOTE:
 * `Limit` counts items before a filter; query on until the page holds `limit` items, never more.
 */
export async function queryPartition(
  documents: DynamoDBDocumentClient,
  tableName: string,
  pk: string,
  page: PageOptions,
  filter?: { FilterExpression: string; ExpressionAttributeValues: Record<string, unknown> },
): Promise<{ items: Record<string, unknown>[]; cursor: string | null }> {
  const limit = page.limit ?? 100;
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined =
    page.cursor === undefined ? undefined : decodeCursor(page.cursor, pk);
  do {
    const query: QueryCommandInput = {
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': pk, ...filter?.ExpressionAttributeValues },
      ConsistentRead: true,
      Limit: limit - items.length,
      ...(filter === undefined ? {} : { FilterExpression: filter.FilterExpression }),
      ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey }),
    };
    const result = await documents.send(new QueryCommand(query));
    items.push(...(result.Items ?? []));
    startKey = result.LastEvaluatedKey;
  } while (startKey !== undefined && items.length < limit);
  return { items, cursor: startKey === undefined ? null : encodeCursor({ pk, sk: String(startKey.sk) }) };
}
