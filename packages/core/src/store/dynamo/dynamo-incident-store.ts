import { ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import {
  type IncidentStore,
  incidentEventsPartitionKey,
  incidentKey,
  MAX_STORED_INCIDENT_EVENTS,
  webhookEventKey,
} from '../incident-store.ts';
import { incidentEventItem, incidentEventOf, incidentOf, newIncidentItem } from '../items/incident-item.ts';
import { ttlFor } from '../items/item.ts';

export interface DynamoIncidentStoreOptions {
  client: DynamoDBClient;
  tableName: string;
  /** Days incidents and their events are kept (their `ttl`), like the runs they belong to. */
  retentionDays?: number;
}

/** The IncidentStore on the diagnosis table: conditional puts and updates only (see the port). */
export function createDynamoIncidentStore(options: DynamoIncidentStoreOptions): IncidentStore {
  const documents = DynamoDBDocumentClient.from(options.client, { marshallOptions: { removeUndefinedValues: true } });
  const { tableName } = options;
  const retentionDays = options.retentionDays ?? 90;
  const conditional = async (write: () => Promise<unknown>): Promise<boolean> => {
    try {
      await write();
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  };

  return {
    async getIncident(ref) {
      const { Item } = await documents.send(
        new GetCommand({ TableName: tableName, Key: incidentKey(ref), ConsistentRead: true }),
      );
      return Item === undefined ? null : incidentOf(Item);
    },

    async openIncident(ref, claim) {
      const item = newIncidentItem(ref, claim, ttlFor(claim.at, retentionDays));
      try {
        // NOTE: a refused claim answers with the incident as stored (ALL_OLD), so a repeat costs no second request.
        await documents.send(
          new PutCommand({
            TableName: tableName,
            Item: item,
            ConditionExpression: 'attribute_not_exists(pk)',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        return { opened: true };
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
        return { opened: false, incident: error.Item === undefined ? null : incidentOf(unmarshall(error.Item)) };
      }
    },

    reopenIncident(seen, claim) {
      const at = new Date(claim.at).toISOString();
      return conditional(() =>
        documents.send(
          new UpdateCommand({
            TableName: tableName,
            Key: incidentKey(seen),
            UpdateExpression:
              'SET run_id = :run, opened_at = :at, last_event_at = :at, event_count = :zero, run_count = run_count + :one, #ttl = :ttl REMOVE resolved_at',
            ConditionExpression: 'run_id = :seenRun AND last_event_at = :seenLast',
            ExpressionAttributeNames: { '#ttl': 'ttl' },
            ExpressionAttributeValues: {
              ':run': claim.runId,
              ':at': at,
              ':zero': 0,
              ':one': 1,
              ':ttl': ttlFor(claim.at, retentionDays),
              ':seenRun': seen.runId,
              ':seenLast': seen.lastEventAt,
            },
          }),
        ),
      );
    },

    async attachEvent(ref, runId, event) {
      let sequence: number;
      try {
        const { Attributes } = await documents.send(
          new UpdateCommand({
            TableName: tableName,
            Key: incidentKey(ref),
            // NOTE: the resolved mark follows what the sender said last: set by a resolution, cleared by a firing
            // event, kept by an acknowledgement.
            UpdateExpression:
              event.kind === 'RESOLVED'
                ? 'SET last_event_at = :at, resolved_at = :at ADD event_count :one'
                : event.kind === 'ACKNOWLEDGED'
                  ? 'SET last_event_at = :at ADD event_count :one'
                  : 'SET last_event_at = :at ADD event_count :one REMOVE resolved_at',
            ConditionExpression: 'run_id = :run',
            ExpressionAttributeValues: { ':at': new Date(event.at).toISOString(), ':one': 1, ':run': runId },
            ReturnValues: 'UPDATED_NEW',
          }),
        );
        sequence = Number(Attributes?.event_count);
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return null;
        throw error;
      }
      // NOTE: the count is atomic, so each event has its own sequence number and item key; past the cap it is counted
      // on the incident only, so a storm cannot grow a run's partition without bound.
      if (sequence <= MAX_STORED_INCIDENT_EVENTS) {
        const item = incidentEventItem(runId, sequence, event, ttlFor(event.at, retentionDays));
        await documents.send(
          new PutCommand({ TableName: tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' }),
        );
      }
      return sequence;
    },

    async releaseIncident(ref, runId, previous) {
      if (previous !== undefined) {
        await conditional(() =>
          documents.send(
            new UpdateCommand({
              TableName: tableName,
              Key: incidentKey(ref),
              // NOTE: the resolved mark is put back too: a re-fire of a resolved incident that never started is still one.
              UpdateExpression: `SET run_id = :previousRun, opened_at = :openedAt, last_event_at = :lastEventAt, event_count = :eventCount, run_count = :runCount${previous.resolvedAt === null ? ' REMOVE resolved_at' : ', resolved_at = :resolvedAt'}`,
              ConditionExpression: 'run_id = :run',
              ExpressionAttributeValues: {
                ':previousRun': previous.runId,
                ':openedAt': previous.openedAt,
                ':lastEventAt': previous.lastEventAt,
                ':eventCount': previous.eventCount,
                ':runCount': previous.runCount,
                ':run': runId,
                ...(previous.resolvedAt === null ? {} : { ':resolvedAt': previous.resolvedAt }),
              },
            }),
          ),
        );
        return;
      }
      await conditional(() =>
        documents.send(
          new DeleteCommand({
            TableName: tableName,
            Key: incidentKey(ref),
            ConditionExpression: 'run_id = :run AND run_count = :one',
            ExpressionAttributeValues: { ':run': runId, ':one': 1 },
          }),
        ),
      );
    },

    async listIncidentEvents(runId, limit = MAX_STORED_INCIDENT_EVENTS) {
      const { Items } = await documents.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': incidentEventsPartitionKey(runId) },
          ConsistentRead: true,
          Limit: Math.min(Math.max(1, limit), MAX_STORED_INCIDENT_EVENTS),
        }),
      );
      return (Items ?? []).map(incidentEventOf);
    },

    claimWebhookEvent(source, eventId, claim) {
      return conditional(() =>
        documents.send(
          new PutCommand({
            TableName: tableName,
            Item: {
              ...webhookEventKey(source, eventId),
              entity: 'webhook_event',
              schema_version: 1,
              source,
              ttl: Math.ceil(claim.expiresAt / 1_000),
            },
            ConditionExpression: 'attribute_not_exists(pk) OR #ttl < :now',
            ExpressionAttributeNames: { '#ttl': 'ttl' },
            ExpressionAttributeValues: { ':now': Math.floor(claim.at / 1_000) },
          }),
        ),
      );
    },

    async releaseWebhookEvent(source, eventId) {
      await documents.send(new DeleteCommand({ TableName: tableName, Key: webhookEventKey(source, eventId) }));
    },
  };
}
