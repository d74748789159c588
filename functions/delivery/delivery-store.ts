/**
 * Port and DynamoDB adapter: the delivery of one run's result to one destination, a conditional write per run ×
 * destination. Items live in their own partition, `DELIVERY#<runId>` (sort key `DEST#<destinationId>`), beside the
 * run's: the run's own item is written by its lifecycle only, so a delivery can never change a run's outcome, and
 * the audit trail's pages (`RUN#<runId>`) are unchanged. `GET /runs/{runId}` reads them back as the run's delivery.
 * The items are `delivery-items.ts`'s (core's item conventions); the in-memory twin (`memory-delivery-store.ts`) keeps
 * the same items, and one contract suite holds both (test/contract/delivery-store-contract.ts).
 */
import {
  ConditionalCheckFailedException,
  DeleteItemCommand,
  type DynamoDBClient,
  QueryCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { RunStoreError } from '@diagnosis/core/store';
import {
  DELIVERY_STATUSES,
  type DeliveryStatus,
  deliveryAttemptItem,
  deliveryKey,
  deliveryPartitionKey,
  deliveryRecordOf,
} from './delivery-items.ts';
import type { DestinationType } from './destinations.ts';

export { DELIVERY_STATUSES, type DeliveryStatus };

export interface DeliveryKey {
  runId: string;
  enterpriseId: string;
  /**
   * When the run was created (its `createdAt`). NOTE: a run id is a caller's choice and becomes free again once the run's
   * item has expired, while its delivery records (kept from the attempt) may not have: a record of another enterprise,
   * or one last written before this run existed, is an earlier run's under the same id — never shown, never a reason
   * to refuse this run's delivery.
   */
  runCreatedAt: string;
  destinationId: string;
  destinationType: DestinationType;
}

/** One run × destination as `GET /runs/{runId}` shows it. */
export interface DeliveryRecord {
  destinationId: string;
  destinationType: DestinationType;
  status: DeliveryStatus;
  /** Attempts made so far (each SQS receive that tried this destination is one). */
  attempts: number;
  /** The last failure's stable code (`HTTP_500`, `TIMEOUT`, `NETWORK`, `SNS_<ErrorName>`); null once delivered. */
  lastError: string | null;
  updatedAt: string;
  deliveredAt: string | null;
}

/** The run whose deliveries are listed: only its own records (its enterprise's, written since it was created). */
export type DeliveredRun = { runId: string; enterpriseId: string; createdAt: string };

/** Whether a stored record is this run's: its enterprise's, written since it was created (see DeliveryKey). */
export const isRecordOfRun = (record: { enterpriseId: string; updatedAt: string }, run: Omit<DeliveredRun, 'runId'>) =>
  record.enterpriseId === run.enterpriseId && record.updatedAt >= run.createdAt;

export type AttemptClaim = { taken: true; attempt: number } | { taken: false; reason: 'DELIVERED' | 'BUSY' };

/** Port: the delivery records of runs. */
export interface DeliveryStore {
  /**
   * Takes the run × destination for one attempt (status SENDING, held for `leaseMs`): refused as DELIVERED once it
   * was delivered, and as BUSY while another attempt holds it, so two receives of one message never send at once.
   */
  beginAttempt(key: DeliveryKey, nowMs: number, leaseMs: number): Promise<AttemptClaim>;
  recordDelivered(key: DeliveryKey, nowMs: number): Promise<void>;
  /** A failed attempt: RETRYING, or DEAD_LETTERED after the last try. Never overwrites DELIVERED. */
  recordFailure(key: DeliveryKey, code: string, final: boolean, nowMs: number): Promise<void>;
  /** The run's deliveries in destination order (at most one page: an enterprise has at most ten destinations). */
  listDeliveries(run: DeliveredRun): Promise<DeliveryRecord[]>;
}

/** Days a delivery record is kept when its store is given none: RETENTION_DAYS' default. */
export const DEFAULT_DELIVERY_RETENTION_DAYS = 90;

export interface DynamoDeliveryStoreOptions {
  client: DynamoDBClient;
  tableName: string;
  /** Days a delivery record is kept (its `ttl`): RETENTION_DAYS, like the run's items. */
  retentionDays?: number;
}

export function createDynamoDeliveryStore(options: DynamoDeliveryStoreOptions): DeliveryStore {
  const { client, tableName } = options;
  const retentionDays = options.retentionDays ?? DEFAULT_DELIVERY_RETENTION_DAYS;
  const iso = (ms: number) => new Date(ms).toISOString();

  async function update(
    key: DeliveryKey,
    expression: string,
    condition: string,
    values: Record<string, unknown>,
    returnAll = false,
  ) {
    return client.send(
      new UpdateItemCommand({
        TableName: tableName,
        Key: marshall(deliveryKey(key)),
        UpdateExpression: expression,
        ConditionExpression: condition,
        // NOTE: DynamoDB refuses a name the expressions do not use.
        ExpressionAttributeNames: Object.fromEntries(
          Object.entries({ '#status': 'status', '#ttl': 'ttl' }).filter(([name]) =>
            `${expression} ${condition}`.includes(name),
          ),
        ),
        ExpressionAttributeValues: marshall(values, { removeUndefinedValues: true }),
        ...(returnAll ? { ReturnValues: 'ALL_NEW', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' } : {}),
      }),
    );
  }

  async function beginAttempt(
    key: DeliveryKey,
    nowMs: number,
    leaseMs: number,
    clearStale: boolean,
  ): Promise<AttemptClaim> {
    // NOTE: the item a first attempt writes, checked before anything is sent; a later attempt sets the same values.
    const first = deliveryAttemptItem(key, nowMs, leaseMs, retentionDays);
    try {
      const result = await update(
        key,
        [
          'SET #status = :sending, lease_until = :lease, entity = :entity, schema_version = :version, run_id = :run,',
          'enterprise_id = :enterprise, destination_id = :destination, destination_type = :type, updated_at = :now,',
          '#ttl = if_not_exists(#ttl, :ttl) ADD attempts :one',
        ].join(' '),
        // NOTE: the enterprise and the run's creation are part of the condition: a record is only ever this run's.
        '(attribute_not_exists(pk) OR (enterprise_id = :enterprise AND updated_at >= :created)) AND ' +
          '(attribute_not_exists(#status) OR (#status <> :delivered AND (#status <> :sending OR lease_until < :nowMs)))',
        {
          ':sending': first.status,
          ':delivered': 'DELIVERED',
          ':lease': first.lease_until,
          ':nowMs': nowMs,
          ':entity': first.entity,
          ':version': first.schema_version,
          ':run': first.run_id,
          ':enterprise': first.enterprise_id,
          ':created': key.runCreatedAt,
          ':destination': first.destination_id,
          ':type': first.destination_type,
          ':now': first.updated_at,
          ':ttl': first.ttl,
          ':one': 1,
        },
        true,
      );
      const attempts = result.Attributes?.attempts?.N;
      return { taken: true, attempt: attempts === undefined ? 1 : Number(attempts) };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const old = error.Item === undefined ? {} : unmarshall(error.Item);
      // Last written before this run existed: an earlier run's under this id (of any enterprise). A record of
      // another enterprise written since is no earlier run's: refused.
      const stale =
        typeof old.enterprise_id === 'string' &&
        typeof old.updated_at === 'string' &&
        old.updated_at < key.runCreatedAt;
      if (stale && clearStale) {
        // An earlier run's record under this id: removed (only if it is still that record), then this run's taken.
        await client
          .send(
            new DeleteItemCommand({
              TableName: tableName,
              Key: marshall(deliveryKey(key)),
              ConditionExpression: 'enterprise_id = :enterprise AND updated_at = :updated',
              ExpressionAttributeValues: marshall({ ':enterprise': old.enterprise_id, ':updated': old.updated_at }),
            }),
          )
          .catch((deleteError: unknown) => {
            if (!(deleteError instanceof ConditionalCheckFailedException)) throw deleteError;
          });
        return beginAttempt(key, nowMs, leaseMs, false);
      }
      const own = old.enterprise_id === key.enterpriseId && !stale;
      return { taken: false, reason: own && old.status === 'DELIVERED' ? 'DELIVERED' : 'BUSY' };
    }
  }

  return {
    beginAttempt: (key, nowMs, leaseMs) => beginAttempt(key, nowMs, leaseMs, true),

    async recordDelivered(key, nowMs) {
      await update(
        key,
        'SET #status = :delivered, delivered_at = :now, updated_at = :now, last_error = :none REMOVE lease_until',
        'attribute_exists(pk) AND enterprise_id = :enterprise',
        { ':delivered': 'DELIVERED', ':now': iso(nowMs), ':none': null, ':enterprise': key.enterpriseId },
      );
    },

    async recordFailure(key, code, final, nowMs) {
      try {
        await update(
          key,
          'SET #status = :status, last_error = :code, updated_at = :now REMOVE lease_until',
          'attribute_exists(pk) AND enterprise_id = :enterprise AND #status <> :delivered',
          {
            ':status': final ? 'DEAD_LETTERED' : 'RETRYING',
            ':code': code,
            ':now': iso(nowMs),
            ':delivered': 'DELIVERED',
            ':enterprise': key.enterpriseId,
          },
        );
      } catch (error) {
        // NOTE: delivered meanwhile (by a duplicate receive): the delivery stands.
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    },

    async listDeliveries(run) {
      const result = await client.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: marshall({ ':pk': deliveryPartitionKey(run.runId) }),
          ConsistentRead: true,
          Limit: 50,
        }),
      );
      return (result.Items ?? []).flatMap((item) => {
        const record = readableRecord(unmarshall(item));
        return record !== null && isRecordOfRun(record, run) ? [shownRecord(record)] : [];
      });
    },
  };
}

/** A stored record, or null for one that fails its schema (NOTE: never shown, as a record of no run). */
export function readableRecord(item: unknown): ReturnType<typeof deliveryRecordOf> | null {
  try {
    return deliveryRecordOf(item);
  } catch (error) {
    if (error instanceof RunStoreError && error.code === 'CORRUPT_ITEM') return null;
    throw error;
  }
}

/** A stored record as `GET /runs/{runId}` shows it. */
export function shownRecord(record: ReturnType<typeof deliveryRecordOf>): DeliveryRecord {
  return {
    destinationId: record.destinationId,
    destinationType: record.destinationType,
    status: record.status,
    attempts: record.attempts,
    lastError: record.lastError,
    updatedAt: record.updatedAt,
    deliveredAt: record.deliveredAt,
  };
}
