import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { StoreSettings } from '../../config/store-settings.ts';

/** What of the process environment a DynamoDB client needs: the region a local endpoint is signed for. */
export interface DynamoClientEnvironment {
  AWS_REGION?: string | undefined;
}

/**
 * A DynamoDB client for the configured table, built once per cold start and handed to every store. Placeholder
 * credentials only for a DynamoDB Local on this machine (signed for `AWS_REGION`, else `local`); any other endpoint
 * (a VPC endpoint, say) and the default one use the function's own credentials and region. NOTE: the environment is
 * the caller's to hand in (`process.env` in a handler): the core reads none.
 */
export function createDynamoClient(settings: StoreSettings, environment: DynamoClientEnvironment = {}): DynamoDBClient {
  const endpoint = settings.DYNAMODB_ENDPOINT;
  if (endpoint === undefined) return new DynamoDBClient({ maxAttempts: 3 });
  const local = /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?\/?$/.test(endpoint);
  return new DynamoDBClient({
    endpoint,
    maxAttempts: 3,
    ...(local
      ? { region: environment.AWS_REGION ?? 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
      : {}),
  });
}
