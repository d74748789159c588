import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * The document client the run store and the audit writer send their items with. NOTE: one marshalling for both, so
 * an item reads back exactly as it was written: undefined attributes dropped, class instances never turned into maps
 * (the items are plain JSON by construction; anything else is a bug to surface, not to store).
 */
export function createRunDocumentClient(client: DynamoDBClient): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
}
