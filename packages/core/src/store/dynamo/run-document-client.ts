import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * The document client the run store and the audit writer send their items with. NOTE: one marshalling for both, so
 * an item reads back exactly as it was written: undefined attributes dropped, class instances never turned into maps
 * (the items are plain JSON by construction; anything else is a bug to surface, not to store).
 */
export function createRunDocumentClient(client: DynamoDBClient, budget?: AbortSignal): DynamoDBDocumentClient {
  const documents = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
  if (budget === undefined) return documents;
  // NOTE: every request sent through it carries `budget` (with the caller's own signal, if any): the SDK checks it
  // before each attempt and abandons one on the wire, so no request outlives the invocation that made it.
  const send = documents.send.bind(documents) as (command: unknown, options?: { abortSignal?: AbortSignal }) => unknown;
  const bounded = Object.create(documents) as DynamoDBDocumentClient;
  bounded.send = ((command: unknown, options?: { abortSignal?: AbortSignal }) =>
    send(command, {
      ...options,
      abortSignal: options?.abortSignal === undefined ? budget : AbortSignal.any([budget, options.abortSignal]),
    })) as DynamoDBDocumentClient['send'];
  return bounded;
}
