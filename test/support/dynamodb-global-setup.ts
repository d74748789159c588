import { type DynamoDbLocal, startDynamoDbLocal } from '@diagnosis/devkit';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
  }
}

let engine: DynamoDbLocal | undefined;

/**
 * One DynamoDB Local for the whole test run (or the one named by DYNAMODB_ENDPOINT), started once by the root config
 * for the integration and e2e projects; each test file makes its own table.
 */
export async function setup(project: TestProject): Promise<void> {
  // NOTE: the unit project needs no Java and no database; a run of it alone starts nothing.
  if (!project.vitest.projects.some((selected) => selected.name === 'integration' || selected.name === 'e2e')) return;
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
