import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ensureDiagnosisTable } from '@diagnosis/core/store';
import { inject } from 'vitest';

/** A client for the test run's DynamoDB Local. */
export function localDynamoClient(options: { maxAttempts?: number } = {}): DynamoDBClient {
  return new DynamoDBClient({
    endpoint: inject('dynamodbEndpoint'),
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: options.maxAttempts ?? 3,
  });
}

/**
 * Records the name of every command `client` sends (`PutItemCommand`, …) into the returned list, in order, from a
 * middleware on the client itself: what a run or a store asks DynamoDB for, whatever client wraps it.
 */
export function recordCommands(client: DynamoDBClient): string[] {
  const commands: string[] = [];
  client.middlewareStack.add(
    (next, context) => (args) => {
      commands.push(String(context.commandName));
      return next(args);
    },
    { step: 'initialize', name: 'recordCommands' },
  );
  return commands;
}

/** A freshly created table with a random name; `drop` deletes it. */
export async function createTestTable(
  client: DynamoDBClient,
): Promise<{ tableName: string; drop: () => Promise<void> }> {
  const tableName = `diagnosis-test-${Math.random().toString(36).slice(2, 10)}`;
  await ensureDiagnosisTable(client, tableName);
  return {
    tableName,
    drop: async () => {
      await client.send(new DeleteTableCommand({ TableName: tableName })).catch(() => undefined);
    },
  };
}

/** Every item of the given partitions of a table (one Query each, pages followed), as DynamoDB holds them. */
export async function partitionItems(
  documents: DynamoDBDocumentClient,
  tableName: string,
  partitionKeys: readonly string[],
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for (const pk of partitionKeys) {
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await documents.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': pk },
          ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey }),
        }),
      );
      items.push(...(page.Items ?? []));
      startKey = page.LastEvaluatedKey;
    } while (startKey !== undefined);
  }
  return items;
}
