/**
 * NOTE: over ~300 lines on purpose: it is the one DynamoDB adapter of the RunStore and AuditHook ports, and its
 * conditional writes (start, queue, claim, cancel, progress, completion) share one helper and one item codec.
 */
import {
  ConditionalCheckFailedException,
  type DynamoDBClient,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  type QueryCommandInput,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { checkMaxOpenRuns, DEFAULT_TENANT_MAX_OPEN_RUNS, type OpenRuns } from '../access/tenant-admission.ts';
import { AuditWriteError, DiagnosisTenantBusyError, RunStoreError, safeErrorName } from '../errors.ts';
import { DEFAULT_AUDIT_WRITES_IN_FLIGHT } from '../run/audit-write-limits.ts';
import type { AuditHook, ModelStepEvent, ToolInvocationEvent } from './audit-hook.ts';
import {
  completionAttributes,
  newRunItem,
  progressAttributes,
  reasoningOf,
  recordOf,
  runOf,
  stepItems,
  toolItem,
} from './item-codec.ts';
import {
  createToolSortKeys,
  decodeCursor,
  encodeCursor,
  OPEN_RUNS_INDEX_KEY,
  openRunsKey,
  reasoningPartitionKey,
  runKey,
  sessionKey,
} from './item-keys.ts';
import type { Item } from './item-schemas.ts';
import {
  isPublishedDiagnosis,
  type LiveProgress,
  type PageOptions,
  type RunOutcome,
  type RunStore,
  type StartRunInput,
  type StartRunResult,
  type StoredRun,
} from './run-store.ts';
import { createWriteQueue } from './write-queue.ts';

export interface DynamoAuditStoreOptions {
  /** A DynamoDB client built once per cold start (its own retry policy applies to storage writes only). */
  client: DynamoDBClient;
  tableName: string;
  /** Days every item of a run is kept (its `ttl`). */
  retentionDays?: number;
  /** Days a run's raw reasoning is kept (default: `retentionDays`). */
  reasoningRetentionDays?: number;
  now?: () => number;
  /**
   * Audit puts this store has in flight at once (default {@link DEFAULT_AUDIT_WRITES_IN_FLIGHT}); the rest wait in
   * its write-behind queue. The store is built per run, so this bounds one run's writes. `Infinity`: no bound.
   */
  maxWritesInFlight?: number;
  /** Runs read per page by `findPreviousRun`, and the most pages it reads. */
  sessionPageSize?: number;
  maxSessionPages?: number;
  /** Open (QUEUED or RUNNING) runs one enterprise may have (default {@link DEFAULT_TENANT_MAX_OPEN_RUNS}). */
  maxOpenRuns?: number;
}

export type DynamoAuditStore = AuditHook & RunStore;

/** Whether a cancelled transaction lost to another one on the same item (a flood on one enterprise's admission). */
function isConflict(error: TransactionCanceledException): boolean {
  return (error.CancellationReasons ?? []).some((reason) => reason.Code === 'TransactionConflict');
}

/**
 * The audit hook and run store on one DynamoDB table. Audit writes are write-behind: `onModelStep` and
 * `onToolInvocation` queue their puts and return; at most `maxWritesInFlight` run at once, writes to the same item
 * key in the order they were queued; `flush` waits for them all and names any that failed. Every
 * put is conditional (`attribute_not_exists`): nothing written is ever overwritten, and a second record for the same
 * tool call id is an integrity error, never an overwrite.
 */
export function createDynamoAuditStore(options: DynamoAuditStoreOptions): DynamoAuditStore {
  const documents = DynamoDBDocumentClient.from(options.client, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
  const { tableName } = options;
  const retentionDays = options.retentionDays ?? 90;
  const reasoningRetentionDays = options.reasoningRetentionDays ?? retentionDays;
  const now = options.now ?? Date.now;
  const pageSize = options.sessionPageSize ?? 25;
  const maxPages = options.maxSessionPages ?? 40;
  const pending: Promise<void>[] = [];
  const failures: { key: string; reason: string }[] = [];
  const writes = createWriteQueue(options.maxWritesInFlight ?? DEFAULT_AUDIT_WRITES_IN_FLIGHT);
  const toolSortKeyOf = createToolSortKeys();
  const maxOpenRuns = checkMaxOpenRuns(options.maxOpenRuns ?? DEFAULT_TENANT_MAX_OPEN_RUNS);

  function putBehind(item: Item): void {
    const key = `${item.pk}|${item.sk}`;
    // NOTE: writes to the same key go out in the order they were emitted, so the conditional put keeps the first one,
    // not whichever reached DynamoDB first; and however many events a round emits, only `maxWritesInFlight` puts of
    // this run's one partition are on the wire at once.
    const write = writes
      .enqueue(key, async () => {
        await documents.send(
          new PutCommand({ TableName: tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' }),
        );
      })
      .then(
        () => undefined,
        (error: unknown) => {
          failures.push({ key, reason: safeErrorName(error) });
        },
      );
    pending.push(write);
  }

  return {
    async onModelStep(event: ModelStepEvent) {
      for (const item of stepItems(event, now(), retentionDays, reasoningRetentionDays)) putBehind(item);
    },

    async onToolInvocation(event: ToolInvocationEvent) {
      putBehind(toolItem(event, now(), retentionDays, toolSortKeyOf(event)));
    },

    async flush() {
      while (pending.length > 0) await Promise.all(pending.splice(0));
      if (failures.length > 0) throw new AuditWriteError(failures.splice(0));
    },

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
      try {
        const at = new Date(now()).toISOString();
        const { Attributes } = await documents.send(
          new UpdateCommand({
            TableName: tableName,
            Key: runKey(runId),
            UpdateExpression: 'SET #status = :running, deadline_at = :deadline, heartbeat_at = :at',
            ConditionExpression: `#status = :queued AND attribute_not_exists(cancel_requested_at)${ownerCondition}`,
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: {
              ':running': 'RUNNING',
              ':queued': 'QUEUED',
              ':deadline': new Date(deadlineAt).toISOString(),
              ':at': at,
              ...(typeof owner === 'string' ? { ':owner': owner } : {}),
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
        await forget(ended.enterpriseId, runId);
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
      return this.getRun(runId);
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
      await forget(completed.enterpriseId, runId);
    },

    async listOpenRuns(): Promise<OpenRuns[]> {
      const open: OpenRuns[] = [];
      let startKey: Record<string, unknown> | undefined;
      do {
        const page = await documents.send(
          new QueryCommand({
            TableName: tableName,
            IndexName: 'gsi1',
            KeyConditionExpression: 'gsi1pk = :index',
            ExpressionAttributeValues: { ':index': OPEN_RUNS_INDEX_KEY },
            ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey }),
          }),
        );
        for (const item of page.Items ?? []) {
          if (item.entity !== 'tenant_open_runs' || typeof item.enterprise_id !== 'string') continue;
          const ids = (item.open_run_ids instanceof Set ? [...item.open_run_ids] : []).filter(
            (id): id is string => typeof id === 'string',
          );
          // NOTE: an enterprise whose runs all ended keeps its item, with no set: it has no open runs to list.
          if (ids.length > 0) open.push({ enterpriseId: item.enterprise_id, runIds: ids.sort() });
        }
        startKey = page.LastEvaluatedKey;
      } while (startKey !== undefined);
      return open.sort((a, b) => (a.enterpriseId < b.enterpriseId ? -1 : 1));
    },

    forgetOpenRun(enterpriseId: string, runId: string): Promise<void> {
      return forget(enterpriseId, runId);
    },

    async getRun(runId: string): Promise<StoredRun | null> {
      const { Item } = await documents.send(
        new GetCommand({ TableName: tableName, Key: runKey(runId), ConsistentRead: true }),
      );
      return Item === undefined ? null : runOf(Item);
    },

    async listRunRecords(runId, page = {}) {
      // NOTE: items written before reasoning had its own partition may still sit in the run's: never listed here.
      const result = await queryPartition(runKey(runId).pk, page, {
        FilterExpression: 'entity <> :reasoning',
        ExpressionAttributeValues: { ':reasoning': 'agent_reasoning_audit' },
      });
      return { records: result.items.map(recordOf), cursor: result.cursor };
    },

    async listReasoning(runId, page = {}) {
      const result = await queryPartition(reasoningPartitionKey(runId), page);
      return { records: result.items.map(reasoningOf), cursor: result.cursor };
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

  /**
   * Puts a new run item and admits it among its enterprise's open runs, in one transaction: the run is written only
   * if its runId is new (a replay reports the stored run instead, and is not counted again) and only while the
   * enterprise has fewer than `maxOpenRuns` open runs (else nothing is written: `DiagnosisTenantBusyError`).
   */
  async function putNewRun(
    input: StartRunInput,
    status: 'QUEUED' | 'RUNNING',
    deadlineAt?: number,
    executionArn?: string,
  ): Promise<StartRunResult> {
    const item = newRunItem(input, now(), retentionDays, status, deadlineAt, executionArn);
    try {
      await documents.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' } },
            {
              Update: {
                TableName: tableName,
                Key: openRunsKey(input.enterpriseId),
                UpdateExpression:
                  'ADD open_run_ids :run SET entity = :entity, enterprise_id = :enterprise, gsi1pk = :index, gsi1sk = :tenant',
                ConditionExpression: 'attribute_not_exists(open_run_ids) OR size(open_run_ids) < :max',
                ExpressionAttributeValues: {
                  ':run': new Set([input.runId]),
                  ':entity': 'tenant_open_runs',
                  ':enterprise': input.enterpriseId,
                  ':index': OPEN_RUNS_INDEX_KEY,
                  ':tenant': `TENANT#${input.enterpriseId}`,
                  ':max': maxOpenRuns,
                },
              },
            },
          ],
        }),
      );
      return { started: true, run: runOf(item) };
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const [runReason, admissionReason] = error.CancellationReasons ?? [];
      // NOTE: a replay wins over a full enterprise: the existing run is answered, never refused.
      if (runReason?.Code !== 'ConditionalCheckFailed') {
        // A full enterprise, or its admission item contended by a flood of its own starts: either way, busy.
        if (admissionReason?.Code === 'ConditionalCheckFailed' || isConflict(error)) {
          throw new DiagnosisTenantBusyError('open');
        }
        throw error;
      }
      const { Item } = await documents.send(
        new GetCommand({ TableName: tableName, Key: runKey(input.runId), ConsistentRead: true }),
      );
      if (Item === undefined) throw new RunStoreError('RUN_NOT_FOUND', 'the run vanished during start');
      return { started: false, run: runOf(Item) };
    }
  }

  /**
   * Drops a run from its enterprise's open runs. NOTE: after the run's own conditional write, not in one transaction
   * with it: a completion is never lost to contention on the admission item; if the process dies in between, the id
   * stays in the set (the bound is then stricter, never looser) until the sweeper sees the run ended and forgets it.
   */
  async function forget(enterpriseId: string, runId: string): Promise<void> {
    try {
      await documents.send(
        new UpdateCommand({
          TableName: tableName,
          Key: openRunsKey(enterpriseId),
          UpdateExpression: 'DELETE open_run_ids :run',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':run': new Set([runId]) },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }

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

  /**
   * One page of a partition in key order. NOTE: `Limit` counts items before a filter; query on until the page holds
   * `limit` items, never more.
   */
  async function queryPartition(
    pk: string,
    page: PageOptions,
    filter?: { FilterExpression: string; ExpressionAttributeValues: Record<string, unknown> },
  ): Promise<{ items: Record<string, unknown>[]; cursor: string | null }> {
    const limit = page.limit ?? 100;
    const items: Record<string, unknown>[] = [];
    let startKey: Record<string, unknown> | undefined =
      page.cursor === undefined ? undefined : decodeCursor(page.cursor, pk);
    do {
      const query: QueryCommandInput = {
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk, ...filter?.ExpressionAttributeValues },
        ConsistentRead: true,
        Limit: limit - items.length,
        ...(filter === undefined ? {} : { FilterExpression: filter.FilterExpression }),
        ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey }),
      };
      const result = await documents.send(new QueryCommand(query));
      items.push(...(result.Items ?? []));
      startKey = result.LastEvaluatedKey;
    } while (startKey !== undefined && items.length < limit);
    return { items, cursor: startKey === undefined ? null : encodeCursor({ pk, sk: String(startKey.sk) }) };
  }
}
