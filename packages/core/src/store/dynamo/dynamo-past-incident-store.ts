import { type DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { RunStoreError } from '../../errors.ts';
import type { Item } from '../items/item.ts';
import {
  decodePastIncidentCursor,
  encodePastIncidentCursor,
  PAST_INCIDENT_SORT_KEY_PREFIX,
  type PastIncidentState,
  pastIncidentItem,
  pastIncidentOf,
  pastIncidentPartitionKey,
  pastIncidentStateItem,
  pastIncidentStateOf,
  pastIncidentStateSortKey,
  readablePastIncidents,
  TOMBSTONE_MS,
} from '../items/past-incident-item.ts';
import { PAST_INCIDENT_LIMITS, type PastIncidentStore, type UnreadablePastIncident } from '../past-incident-store.ts';

export interface DynamoPastIncidentStoreOptions {
  client: DynamoDBClient;
  tableName: string;
}

/** Attempts of a write whose run state changed between its read and its write. */
const MAX_ATTEMPTS = 3;

/**
 * The past incidents on the diagnosis table: one partition per enterprise (`PAST#<enterpriseId>`), memory items
 * under `AT#<occurredAt>#<runId>` (read newest first, one bounded Query page) and one state item per run
 * (`RUN#<runId>`). A memory and its state change together in one transaction, conditional on the state this call
 * read: `remember` never over a tombstone, `retract` writes the tombstone and deletes the memory the state names.
 */
export function createDynamoPastIncidentStore(options: DynamoPastIncidentStoreOptions): PastIncidentStore {
  // NOTE: built on the first read or write, not with the store: the Diagnose function builds this store at every cold
  // start, and a run that never looks up knowledge never uses it.
  let client: DynamoDBDocumentClient | undefined;
  const documents = () =>
    (client ??= DynamoDBDocumentClient.from(options.client, { marshallOptions: { removeUndefinedValues: true } }));
  const { tableName } = options;

  async function readState(enterpriseId: string, runId: string): Promise<PastIncidentState | null> {
    const { Item: stored } = await documents().send(
      new GetCommand({
        TableName: tableName,
        Key: { pk: pastIncidentPartitionKey(enterpriseId), sk: pastIncidentStateSortKey(runId) },
        ConsistentRead: true,
      }),
    );
    return stored === undefined ? null : pastIncidentStateOf(stored);
  }

  /** The state item put only over the state read (none, or the same active memory). */
  function putState(item: Item, read: PastIncidentState | null) {
    return {
      Put: {
        TableName: tableName,
        Item: item,
        ...(read === null
          ? { ConditionExpression: 'attribute_not_exists(pk)' }
          : {
              ConditionExpression: '#state = :active AND memory_sk = :sk',
              ExpressionAttributeNames: { '#state': 'state' },
              ExpressionAttributeValues: { ':active': 'ACTIVE', ':sk': read.memory_sk },
            }),
      },
    };
  }

  /** Runs `attempt` until it does not race (a transaction cancelled because the state changed), at most 3 times. */
  async function withRetries<T>(attempt: () => Promise<T | 'RACED'>): Promise<T> {
    for (let count = 0; count < MAX_ATTEMPTS; count += 1) {
      try {
        const outcome = await attempt();
        if (outcome !== 'RACED') return outcome;
      } catch (error) {
        if (!(error instanceof TransactionCanceledException)) throw error;
      }
    }
    throw new RunStoreError('CORRUPT_ITEM', 'the past incident kept changing while it was written');
  }

  async function page(
    enterpriseId: string,
    limit: number,
    now: number,
    read: {
      startSk?: string | undefined;
      signal?: AbortSignal | undefined;
      onUnreadable?: UnreadablePastIncident | undefined;
    },
  ) {
    const { startSk, signal } = read;
    const pk = pastIncidentPartitionKey(enterpriseId);
    const result = await documents().send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': pk, ':prefix': PAST_INCIDENT_SORT_KEY_PREFIX },
        ScanIndexForward: false,
        Limit: limit,
        ...(startSk === undefined ? {} : { ExclusiveStartKey: { pk, sk: startSk } }),
      }),
      signal === undefined ? {} : { abortSignal: signal },
    );
    // NOTE: TTL deletes within days, not at once: an expired memory is dropped here, at read time.
    const incidents = readablePastIncidents(result.Items ?? [], enterpriseId, now, read.onUnreadable);
    const last = result.LastEvaluatedKey?.sk;
    return { incidents, lastSk: typeof last === 'string' ? last : null };
  }

  return {
    remember: (incident) =>
      withRetries(async () => {
        const memory = pastIncidentItem(incident);
        const state = await readState(incident.enterpriseId, incident.runId);
        if (state?.state === 'RETRACTED') return false;
        const next = pastIncidentStateItem(
          incident.enterpriseId,
          incident.runId,
          { memorySk: memory.sk, expiresAt: incident.expiresAt },
          incident.ratedAt,
        );
        await documents().send(
          new TransactWriteCommand({
            TransactItems: [putState(next, state), { Put: { TableName: tableName, Item: memory } }],
          }),
        );
        return true;
      }),

    retract: (enterpriseId, runId, reason, at) =>
      withRetries(async () => {
        const state = await readState(enterpriseId, runId);
        if (state?.state === 'RETRACTED') return false;
        // NOTE: a caller's forget of a run never remembered writes nothing (see the port): no tombstone per made-up id.
        if (state === null && reason === 'FORGOTTEN') return false;
        const tombstone = pastIncidentStateItem(
          enterpriseId,
          runId,
          { retracted: reason, expiresAt: Date.parse(at) + TOMBSTONE_MS },
          at,
        );
        const memorySk = state?.memory_sk ?? null;
        await documents().send(
          new TransactWriteCommand({
            TransactItems: [
              putState(tombstone, state),
              ...(memorySk === null
                ? []
                : [
                    {
                      Delete: {
                        TableName: tableName,
                        Key: { pk: pastIncidentPartitionKey(enterpriseId), sk: memorySk },
                      },
                    },
                  ]),
            ],
          }),
        );
        return memorySk !== null;
      }),

    async recent(enterpriseId, { limit, now, signal, onUnreadable }) {
      const bounded = Math.max(1, Math.min(limit, PAST_INCIDENT_LIMITS.recentWindow));
      return (await page(enterpriseId, bounded, now, { signal, onUnreadable })).incidents;
    },

    async list(enterpriseId, { cursor, limit, now, onUnreadable }) {
      const bounded = Math.max(1, Math.min(limit ?? PAST_INCIDENT_LIMITS.pageSize, PAST_INCIDENT_LIMITS.pageSize));
      const startSk = cursor === undefined ? undefined : decodePastIncidentCursor(cursor);
      const { incidents, lastSk } = await page(enterpriseId, bounded, now, { startSk, onUnreadable });
      return { incidents, cursor: lastSk === null ? null : encodePastIncidentCursor(lastSk) };
    },

    async get(enterpriseId, runId, now) {
      const state = await readState(enterpriseId, runId);
      if (state?.state !== 'ACTIVE' || state.memory_sk === null) return null;
      const { Item: stored } = await documents().send(
        new GetCommand({
          TableName: tableName,
          Key: { pk: pastIncidentPartitionKey(enterpriseId), sk: state.memory_sk },
          ConsistentRead: true,
        }),
      );
      if (stored === undefined) return null;
      const incident = pastIncidentOf(stored, enterpriseId);
      return incident.expiresAt > now ? incident : null;
    },
  };
}
