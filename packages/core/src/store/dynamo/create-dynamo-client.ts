import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { StoreSettings } from '../../config/store-settings.ts';

/** What of the process environment a DynamoDB client needs: the region a local endpoint is signed for. */
export interface DynamoClientEnvironment {
  AWS_REGION?: string | undefined;
}

/** How long one request may take: to open its connection, and to be answered once sent. */
export interface DynamoClientTimeouts {
  connectionTimeoutMs: number;
  requestTimeoutMs: number;
}

/**
 * The timeouts of a client of DynamoDB itself. NOTE: a single request answers in milliseconds; without a timeout a
 * stalled engine or a black-holed connection holds the request (and the run waiting on it) until the function dies,
 * and the SDK's own retries never start. Each of the SDK's 3 attempts is bounded, so a call fails within about
 * 3 × 3 s, and the audit writer's own tries are bounded by the run's time besides (`RunWriteBudget`).
 */
const DYNAMODB_TIMEOUTS: DynamoClientTimeouts = Object.freeze({ connectionTimeoutMs: 1_000, requestTimeoutMs: 3_000 });

/**
 * The timeouts of a client of DynamoDB Local. NOTE: longer than DynamoDB Local's own wait for its table's write lock
 * (10 s, then HTTP 500): a loaded engine is slow, not gone, and a write cut short after it landed would be retried
 * into its own condition.
 */
const DYNAMODB_LOCAL_TIMEOUTS: DynamoClientTimeouts = Object.freeze({
  connectionTimeoutMs: 2_000,
  requestTimeoutMs: 15_000,
});

const LOOPBACK_ENDPOINT = /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?\/?$/;

/**
 * The request handler options of a DynamoDB client for `endpoint` (none: DynamoDB itself): its connection and request
 * timeouts (`timeouts`, else the defaults for DynamoDB or, on this machine, DynamoDB Local), each an error the SDK
 * retries. For every client the service or its local runtime builds.
 */
export function dynamoRequestHandler(endpoint: string | undefined, timeouts?: DynamoClientTimeouts) {
  const local = endpoint !== undefined && LOOPBACK_ENDPOINT.test(endpoint);
  const { connectionTimeoutMs, requestTimeoutMs } = timeouts ?? (local ? DYNAMODB_LOCAL_TIMEOUTS : DYNAMODB_TIMEOUTS);
  // NOTE: `throwOnRequestTimeout`: without it the SDK's handler (@smithy/node-http-handler 4.x) only logs a warning
  // when `requestTimeout` passes and keeps waiting for the answer.
  return { connectionTimeout: connectionTimeoutMs, requestTimeout: requestTimeoutMs, throwOnRequestTimeout: true };
}

/**
 * A DynamoDB client for the configured table, built once per cold start and handed to every store, with a
 * connection and a request timeout on every request (`dynamoRequestHandler`). Placeholder credentials only for a
 * DynamoDB Local on this machine (signed for `AWS_REGION`, else `local`); any other endpoint (a VPC endpoint, say)
 * and the default one use the function's own credentials and region. NOTE: the environment is the caller's to hand
 * in (`process.env` in a handler): the core reads none.
 */
export function createDynamoClient(
  settings: StoreSettings,
  environment: DynamoClientEnvironment = {},
  timeouts?: DynamoClientTimeouts,
): DynamoDBClient {
  const endpoint = settings.DYNAMODB_ENDPOINT;
  const requestHandler = dynamoRequestHandler(endpoint, timeouts);
  if (endpoint === undefined) return new DynamoDBClient({ maxAttempts: 3, requestHandler });
  return new DynamoDBClient({
    endpoint,
    maxAttempts: 3,
    requestHandler,
    ...(LOOPBACK_ENDPOINT.test(endpoint)
      ? { region: environment.AWS_REGION ?? 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
      : {}),
  });
}
