import { randomUUID } from 'node:crypto';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { safeErrorName } from '../../errors.ts';
import type { Item } from '../items/item.ts';

/** How often the writer itself tries an audit put (each try is the SDK's own attempts, with its backoff). */
const AUDIT_PUT_TRIES = 3;

/** The writer's own waits between tries (after the SDK's retries gave up): a throttled partition gets time. */
const AUDIT_PUT_BACKOFF_MS = [200, 800] as const;

export interface AuditPutOptions {
  /** Waits `ms` (a test hands a clock's own; default a timer, ended early by `budget`). */
  sleep?: (ms: number) => Promise<void>;
  /**
   * The run's write time (`RunWriteBudget`): while it lasts, a transient failure is tried again however often (not
   * {@link AUDIT_PUT_TRIES} times); once it aborts, nothing is tried again and a request on the wire is abandoned.
   */
  budget?: AbortSignal;
}

function defaultSleep(ms: number, budget?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    budget?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      budget?.removeEventListener('abort', done);
      resolve();
    }
  });
}

/**
 * Puts one audit item once, conditionally (`attribute_not_exists(pk)`: nothing written is ever overwritten), and
 * survives what a loaded machine or a busy table does to a single request:
 * - a transient failure (throttling, a 5xx, a timeout or a dropped connection; see {@link isTransientWriteError}) is
 *   tried again, at most {@link AUDIT_PUT_TRIES} times with {@link AUDIT_PUT_BACKOFF_MS} between them, on top of the
 *   SDK's own attempts;
 * - a retried put whose earlier attempt did land (its answer was lost: a timeout, a reset) fails its condition on
 *   the item it wrote itself. The table returns the item it holds (`ReturnValuesOnConditionCheckFailure`), and when
 *   it is exactly this item the put is done. NOTE: only after a retry — the SDK's or ours: a first attempt that finds
 *   its key taken is another event's item (a duplicate tool call id), an integrity error as before, never success.
 */
async function putAuditItem(
  documents: DynamoDBDocumentClient,
  tableName: string,
  item: Item,
  options: AuditPutOptions = {},
): Promise<AuditPutResult> {
  return writeOnce(
    (abortSignal) =>
      documents.send(
        new PutCommand({
          TableName: tableName,
          Item: item,
          ConditionExpression: 'attribute_not_exists(pk)',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
        abortSignal === undefined ? {} : { abortSignal },
      ),
    (error) => isConditionFailure(error) && holdsItem(error, item),
    options,
  );
}

/**
 * Puts a model round's items (its step and its reasoning) in one request: one TransactWriteItems, each put with its
 * own condition (`attribute_not_exists(pk)`), so the round is written whole or not at all, in one request instead of
 * one per item (a triggered run's DynamoDB requests, issue 37). The same tries as {@link putAuditItem}: a transient
 * failure (throttling, a 5xx, a timeout, a transaction conflict) is tried again with the same client request token,
 * so DynamoDB answers a retry of a transaction that did land as done (its idempotency window); and a retry whose
 * every put finds exactly its own item (the token's window passed, or a table without it) is done too. NOTE: a
 * transactional write costs twice a plain put's write units — for a round's two items, a few thousandths of a cent a
 * run at on-demand prices, against one request fewer per round.
 */
export async function putAuditItemsTogether(
  documents: DynamoDBDocumentClient,
  tableName: string,
  items: readonly Item[],
  options: AuditPutOptions = {},
): Promise<AuditPutResult> {
  const [only] = items;
  if (items.length === 1 && only !== undefined) return putAuditItem(documents, tableName, only, options);
  const token = randomUUID();
  return writeOnce(
    (abortSignal) =>
      documents.send(
        new TransactWriteCommand({
          ClientRequestToken: token,
          TransactItems: items.map((item) => ({
            Put: {
              TableName: tableName,
              Item: item,
              ConditionExpression: 'attribute_not_exists(pk)',
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            },
          })),
        }),
        abortSignal === undefined ? {} : { abortSignal },
      ),
    (error) => {
      const reasons = cancellationReasons(error);
      return (
        reasons !== null &&
        reasons.length === items.length &&
        reasons.every((reason, index) => {
          const item = items[index];
          return reason.Code === 'ConditionalCheckFailed' && item !== undefined && holdsItem(reason, item);
        })
      );
    },
    options,
  );
}

/**
 * One audit write, tried as {@link putAuditItem} says: `landedEarlier(error)` tells a refused condition that found
 * this write's own items (an earlier attempt landed and its answer was lost), which counts as done only after a retry.
 */
async function writeOnce(
  send: (abortSignal: AbortSignal | undefined) => Promise<unknown>,
  landedEarlier: (error: unknown) => boolean,
  options: AuditPutOptions,
): Promise<AuditPutResult> {
  const { budget } = options;
  const sleep = options.sleep ?? ((ms: number) => defaultSleep(ms, budget));
  const tries = budget === undefined ? AUDIT_PUT_TRIES : Number.POSITIVE_INFINITY;
  const ended = () => budget?.aborted === true;
  let attempts = 0;
  const errorCodes: string[] = [];
  for (let tryNumber = 1; ; tryNumber += 1) {
    try {
      // NOTE: a write queued after the budget ended is refused at once (the SDK checks the signal before it sends).
      const answer = await send(budget);
      return { attempts: attempts + sdkAttempts(answer), errorCodes };
    } catch (error) {
      attempts += sdkAttempts(error);
      errorCodes.push(safeErrorName(error));
      if ((tryNumber > 1 || sdkAttempts(error) > 1) && landedEarlier(error)) return { attempts, errorCodes };
      if (tryNumber >= tries || ended() || !isTransientWriteError(error)) throw error;
      await sleep(AUDIT_PUT_BACKOFF_MS[Math.min(tryNumber, AUDIT_PUT_BACKOFF_MS.length) - 1] ?? 0);
      if (ended()) throw error;
    }
  }
}

/**
 * How a put that landed got there: its attempts (the SDK's and the writer's together; 1 when the first one landed)
 * and the error codes of the writer's tries that failed before (the SDK's own retried errors are not exposed to it).
 */
export interface AuditPutResult {
  attempts: number;
  errorCodes: string[];
}

const TRANSIENT_NAMES = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
  'TransactionInProgressException',
]);

/** A cancelled transaction's reasons that may clear if it is simply sent again (every other reason is final). */
const TRANSIENT_CANCELLATION_CODES = new Set([
  'TransactionConflict',
  'ThrottlingError',
  'ProvisionedThroughputExceeded',
  'RequestLimitExceeded',
]);
const TRANSIENT_SOCKET_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'ECONNABORTED']);

/**
 * Whether a failed write may succeed if simply sent again: DynamoDB's throttling and server errors (a 5xx, or the
 * SDK's `$retryable` mark), a request timeout, a dropped or refused connection. A refused condition, a validation
 * error, a missing table or bad credentials are not: sending them again changes nothing.
 */
function isTransientWriteError(error: unknown): boolean {
  if (error === null || typeof error !== 'object') return false;
  const shape = error as {
    name?: unknown;
    code?: unknown;
    $retryable?: unknown;
    $metadata?: { httpStatusCode?: unknown };
  };
  if (typeof shape.name === 'string' && TRANSIENT_NAMES.has(shape.name)) return true;
  const reasons = cancellationReasons(error);
  if (reasons !== null) {
    // NOTE: a cancelled transaction is transient only when some reason is and none is final (a refused condition).
    const codes = reasons.map((reason) => reason.Code ?? 'None');
    return (
      codes.some((code) => TRANSIENT_CANCELLATION_CODES.has(code)) &&
      codes.every((code) => code === 'None' || TRANSIENT_CANCELLATION_CODES.has(code))
    );
  }
  if (typeof shape.code === 'string' && TRANSIENT_SOCKET_CODES.has(shape.code)) return true;
  if (shape.$retryable !== undefined && shape.$retryable !== null) return true;
  const status = shape.$metadata?.httpStatusCode;
  return typeof status === 'number' && (status >= 500 || status === 429);
}

function isConditionFailure(error: unknown): error is { Item?: Record<string, AttributeValue> } {
  return (error as { name?: unknown } | null)?.name === 'ConditionalCheckFailedException';
}

/** A cancelled transaction's reasons, one per item in order (`TransactionCanceledException`); null for any other. */
function cancellationReasons(error: unknown): { Code?: string; Item?: Record<string, AttributeValue> }[] | null {
  const shape = error as { name?: unknown; CancellationReasons?: unknown } | null;
  if (shape?.name !== 'TransactionCanceledException' || !Array.isArray(shape.CancellationReasons)) return null;
  return shape.CancellationReasons as { Code?: string; Item?: Record<string, AttributeValue> }[];
}

function sdkAttempts(answerOrError: unknown): number {
  const attempts = (answerOrError as { $metadata?: { attempts?: unknown } } | null)?.$metadata?.attempts;
  return typeof attempts === 'number' ? attempts : 1;
}

/**
 * NOTE: compared as data, key order aside (the table returns the item marshalled; numbers come back as numbers and
 * undefined is never sent). `node:util`'s `isDeepStrictEqual` would do, but loading `node:util` costs the Diagnose
 * cold start more than these lines.
 */
function holdsItem(error: { Item?: Record<string, AttributeValue> }, item: Item): boolean {
  if (error.Item === undefined) return false;
  try {
    return canonicalJson(unmarshall(error.Item)) === canonicalJson(item);
  } catch {
    return false;
  }
}

function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0)))
      : inner,
  );
}
