// NOTE: over 300 lines on purpose: one adapter, the run store on DynamoDB: every method of the port over one table
// layout.
import { ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { checkMaxOpenRuns, DEFAULT_TENANT_MAX_OPEN_RUNS } from '../../access/tenant-admission.ts';
import { RunStoreError } from '../../errors.ts';
import type { RunWriteBudget } from '../audit-writer.ts';
import { completionAttributes, progressAttributes } from '../items/completion-attributes.ts';
import { pseudonymBatchOf, pseudonymItem, pseudonymPartitionKey } from '../items/pseudonym-item.ts';
import { reasoningOf, reasoningPartitionKey } from '../items/reasoning-item.ts';
import { newRunItem, runKey, runOf, sessionKey } from '../items/run-item.ts';
import { recordOf } from '../items/run-record.ts';
import {
  isPublishedDiagnosis,
  type LiveProgress,
  type RunOutcome,
  type RunStore,
  type StartRunInput,
  type StartRunResult,
  type StoredRun,
} from '../run-store.ts';
import { createDynamoRunAdmission } from './dynamo-run-admission.ts';
import { queryPartition } from './query-partition.ts';
import { createRunDocumentClient } from './run-document-client.ts';

export interface DynamoRunStoreOptions {
  /** A DynamoDB client built once per cold start (its own retry policy applies to storage writes only). */
  client: DynamoDBClient;
  tableName: string;
  /** Days every item of a run is kept (its `ttl`). */
  retentionDays?: number;
  /** Days a run's pseudonym map is kept, from the run's creation, for batches `appendPseudonyms` adds (default 30). */
  pseudonymRetentionDays?: number;
  now?: () => number;
  /** Runs read per page by `findPreviousRun`, and the most pages it reads. */
  sessionPageSize?: number;
  maxSessionPages?: number;
  /** Open (QUEUED or RUNNING) runs one enterprise may have (default {@link DEFAULT_TENANT_MAX_OPEN_RUNS}). */
  maxOpenRuns?: number;
  /** Aborts when this store's requests must be over ({@link RunWriteBudget}'s `callBudget`): each is abandoned then. */
  callBudget?: AbortSignal;
}

/**
 * The run store on the DynamoDB table. Every write of the run item is conditional (start, queue, claim, cancel,
 * progress, heartbeat, completion: each only from the status it expects), and a run enters and leaves its
 * enterprise's open runs with the writes that start and end it (see `createDynamoRunAdmission`).
 */
export function createDynamoRunStore(options: DynamoRunStoreOptions): RunStore {
  const documents = createRunDocumentClient(options.client, options.callBudget);
  const { tableName } = options;
  const retentionDays = options.retentionDays ?? 90;
  const now = options.now ?? Date.now;
  const pageSize = options.sessionPageSize ?? 25;
  const maxPages = options.maxSessionPages ?? 40;
  const maxOpenRuns = checkMaxOpenRuns(options.maxOpenRuns ?? DEFAULT_TENANT_MAX_OPEN_RUNS);
  const admission = createDynamoRunAdmission({ documents, tableName, maxOpenRuns });

  const putNewRun = (
    input: StartRunInput,
    status: 'QUEUED' | 'RUNNING',
    deadlineAt?: number,
    executionArn?: string,
  ): Promise<StartRunResult> =>
    admission.putNewRun(newRunItem(input, now(), retentionDays, status, deadlineAt, executionArn), input);

  const store: RunStore = {
    startRun(input: StartRunInput, options: { deadlineAt?: number; executionArn?: string } = {}) {
      return putNewRun(input, 'RUNNING', options.deadlineAt, options.executionArn);
    },

    queueRun(input: StartRunInput, options: { executionArn?: string } = {}): Promise<StartRunResult> {
      return putNewRun(input, 'QUEUED', undefined, options.executionArn);
    },

    async claimQueuedRun(runId: string, deadlineAt: number, options = {}): Promise<StoredRun | null> {
      const owner: string | null | undefined = options.owner;
      const ownerCondition =
        owner === undefined
          ? ''
          : owner === null
            ? ' AND attribute_not_exists(execution_arn)'
            : ' AND (attribute_not_exists(execution_arn) OR execution_arn = :owner)';
      const { request } = options;
      // NOTE: QUERY, SESSION and CONTINUE are reserved words in DynamoDB's expressions, hence the names.
      const requestCondition =
        request === undefined
          ? ''
          : ` AND #enterprise = :enterprise AND #session = :session AND #query = :query AND ${
              // NOTE: a run stored without continuation may lack the attribute (read as false).
              request.continueSession
                ? '#continue = :continue'
                : '(attribute_not_exists(#continue) OR #continue = :continue)'
            }`;
      try {
        const at = new Date(now()).toISOString();
        const { Attributes } = await documents.send(
          new UpdateCommand({
            TableName: tableName,
            Key: runKey(runId),
            UpdateExpression: 'SET #status = :running, deadline_at = :deadline, heartbeat_at = :at',
            ConditionExpression: `#status = :queued AND attribute_not_exists(cancel_requested_at)${ownerCondition}${requestCondition}`,
            ExpressionAttributeNames: {
              '#status': 'status',
              ...(request === undefined
                ? {}
                : {
                    '#enterprise': 'enterprise_id',
                    '#session': 'session_id',
                    '#query': 'query',
                    '#continue': 'continue_session',
                  }),
            },
            ExpressionAttributeValues: {
              ':running': 'RUNNING',
              ':queued': 'QUEUED',
              ':deadline': new Date(deadlineAt).toISOString(),
              ':at': at,
              ...(typeof owner === 'string' ? { ':owner': owner } : {}),
              ...(request === undefined
                ? {}
                : {
                    ':enterprise': request.enterpriseId,
                    ':session': request.sessionId,
                    ':query': request.query,
                    ':continue': request.continueSession,
                  }),
            },
            ReturnValues: 'ALL_NEW',
          }),
        );
        return Attributes === undefined ? null : runOf(Attributes);
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return null;
        throw error;
      }
    },

    async requestCancel(runId: string, queuedOutcome: RunOutcome): Promise<StoredRun | null> {
      const at = new Date(now()).toISOString();
      // A QUEUED run ends at once: it never starts.
      const ended = await conditionalUpdate(runId, completionAttributes(queuedOutcome, now()), {
        condition: '#status = :queued',
        values: { ':queued': 'QUEUED' },
        extra: { cancel_requested_at: at },
      });
      if (ended !== null) {
        await admission.forget(ended.enterpriseId, runId);
      } else {
        // A RUNNING run is flagged once; its invocation polls the flag and stops.
        await conditionalUpdate(
          runId,
          { cancel_requested_at: at },
          {
            condition: '#status = :running AND attribute_not_exists(cancel_requested_at)',
            values: { ':running': 'RUNNING' },
          },
        );
      }
      return store.getRun(runId);
    },

    async isCancelRequested(runId: string): Promise<boolean> {
      const { Item } = await documents.send(
        new GetCommand({
          TableName: tableName,
          Key: runKey(runId),
          ProjectionExpression: 'cancel_requested_at',
          ConsistentRead: true,
        }),
      );
      return typeof Item?.cancel_requested_at === 'string';
    },

    async updateProgress(runId: string, live: LiveProgress): Promise<void> {
      await conditionalUpdate(runId, progressAttributes(live, now()), {
        condition: '#status = :running',
        values: { ':running': 'RUNNING' },
      });
    },

    async heartbeat(runId: string): Promise<boolean> {
      const beat = await conditionalUpdate(
        runId,
        { heartbeat_at: new Date(now()).toISOString() },
        { condition: '#status = :running', values: { ':running': 'RUNNING' } },
      );
      return beat !== null;
    },

    async completeRun(runId: string, outcome: RunOutcome, options: { ifHeartbeatAt?: string | null } = {}) {
      const attributes = completionAttributes(outcome, now());
      const beat = options.ifHeartbeatAt;
      const completed = await conditionalUpdate(runId, attributes, {
        condition:
          beat === undefined
            ? '#status = :running'
            : beat === null
              ? '#status = :running AND (attribute_not_exists(heartbeat_at) OR heartbeat_at = :null)'
              : '#status = :running AND heartbeat_at = :beat',
        values: {
          ':running': 'RUNNING',
          ...(beat === undefined ? {} : beat === null ? { ':null': null } : { ':beat': beat }),
        },
      });
      if (completed === null) {
        throw new RunStoreError('RUN_NOT_RUNNING', 'the run is not running (unknown, or already completed)');
      }
      await admission.forget(completed.enterpriseId, runId);
    },

    listOpenRuns() {
      return admission.listOpenRuns();
    },

    forgetOpenRun(enterpriseId: string, runId: string): Promise<void> {
      return admission.forget(enterpriseId, runId);
    },

    async getRun(runId: string): Promise<StoredRun | null> {
      const { Item } = await documents.send(
        new GetCommand({ TableName: tableName, Key: runKey(runId), ConsistentRead: true }),
      );
      return Item === undefined ? null : runOf(Item);
    },

    async listRunRecords(runId, page = {}) {
      // NOTE: items written before reasoning had its own partition may still sit in the run's: never listed here.
      const result = await queryPartition(documents, tableName, runKey(runId).pk, page, {
        FilterExpression: 'entity <> :reasoning',
        ExpressionAttributeValues: { ':reasoning': 'agent_reasoning_audit' },
      });
      return { records: result.items.map(recordOf), cursor: result.cursor };
    },

    async listReasoning(runId, page = {}) {
      const result = await queryPartition(documents, tableName, reasoningPartitionKey(runId), page);
      return { records: result.items.map(reasoningOf), cursor: result.cursor };
    },

    async listPseudonyms(runId, page = {}) {
      const result = await queryPartition(documents, tableName, pseudonymPartitionKey(runId), page);
      return { records: result.items.map(pseudonymBatchOf), cursor: result.cursor };
    },

    async appendPseudonyms(batch, runCreatedAt) {
      try {
        await documents.send(
          new PutCommand({
            TableName: tableName,
            Item: pseudonymItem(batch, Date.parse(runCreatedAt), options.pseudonymRetentionDays ?? 30),
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
        return true;
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return false;
        throw error;
      }
    },

    async findPreviousRun(enterpriseId, sessionId): Promise<StoredRun | null> {
      let startKey: Record<string, unknown> | undefined;
      for (let pageIndex = 0; pageIndex < maxPages; pageIndex += 1) {
        const page = await documents.send(
          new QueryCommand({
            TableName: tableName,
            IndexName: 'gsi1',
            KeyConditionExpression: 'gsi1pk = :session',
            ExpressionAttributeValues: { ':session': sessionKey(enterpriseId, sessionId) },
            ScanIndexForward: false,
            Limit: pageSize,
            ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey }),
          }),
        );
        for (const item of page.Items ?? []) {
          if (item.entity !== 'run') continue;
          const run = runOf(item);
          // NOTE: the key already names the tenant; the exact comparison is the second lock on the same door.
          if (run.enterpriseId !== enterpriseId || run.sessionId !== sessionId) continue;
          if (isPublishedDiagnosis(run)) return run;
        }
        if (page.LastEvaluatedKey === undefined) return null;
        startKey = page.LastEvaluatedKey;
      }
      return null;
    },
  };
  return store;

  /** SETs `attributes` (and `extra`) on the run item if `condition` holds: the run afterwards, or null when it did not. */
  async function conditionalUpdate(
    runId: string,
    attributes: Record<string, unknown>,
    options: { condition: string; values: Record<string, unknown>; extra?: Record<string, unknown> },
  ): Promise<{ enterpriseId: string } | null> {
    const names: Record<string, string> = { '#status': 'status' };
    const values: Record<string, unknown> = { ...options.values };
    const sets = Object.entries({ ...attributes, ...options.extra }).map(([name, value], index) => {
      names[`#a${index}`] = name;
      values[`:v${index}`] = value;
      return `#a${index} = :v${index}`;
    });
    try {
      const { Attributes } = await documents.send(
        new UpdateCommand({
          TableName: tableName,
          Key: runKey(runId),
          UpdateExpression: `SET ${sets.join(', ')}`,
          ConditionExpression: `attribute_exists(pk) AND ${options.condition}`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        }),
      );
      return { enterpriseId: String(Attributes?.enterprise_id ?? '') };
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return null;
      throw error;
    }
  }
}
