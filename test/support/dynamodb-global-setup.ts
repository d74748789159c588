import type { TestProject } from 'vitest/node';
import { type DynamoDbLocal, startDynamoDbLocal } from '../../scripts/dynamodb-local.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
  }
}

let engine: DynamoDbLocal | undefined;

/** One DynamoDB Local for the whole test run (or the one named by DYNAMODB_ENDPOINT); each test file makes its own table. */
export async function setup(project: TestProject): Promise<void> {
  const given = process.env.DYNAMODB_ENDPOINT;
  if (given !== undefined && given !== '') {
    project.provide('dynamodbEndpoint', given);
    return;
  }
  engine = await startDynamoDbLocal();
  project.provide('dynamodbEndpoint', engine.endpoint);
}

export async function teardown(): Promise<void> {
  await engine?.stop();
}
