import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
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
