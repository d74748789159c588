import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { OpenRuns } from '../../access/tenant-admission.ts';
import { DiagnosisTenantBusyError, RunStoreError } from '../../errors.ts';
import type { Item } from '../items/item.ts';
import { OPEN_RUNS_INDEX_KEY, openRunsKey, openRunsOf } from '../items/open-runs-item.ts';
import { runKey, runOf } from '../items/run-item.ts';
import type { StartRunResult } from '../run-store.ts';

export interface DynamoRunAdmission {
  /**
   * Puts a new run item and admits it among its enterprise's open runs, in one transaction: the run is written only
   * if its runId is new (a replay reports the stored run instead, and is not counted again) and only while the
   * enterprise has fewer than `maxOpenRuns` open runs (else nothing is written: `DiagnosisTenantBusyError`).
   */
  putNewRun(item: Item, run: { runId: string; enterpriseId: string }): Promise<StartRunResult>;
  /**
   * Drops a run from its enterprise's open runs. NOTE: after the run's own conditional write, not in one transaction
   * with it: a completion is never lost to contention on the admission item; if the process dies in between, the id
   * stays in the set (the bound is then stricter, never looser) until the sweeper sees the run ended and forgets it.
   */
  forget(enterpriseId: string, runId: string): Promise<void>;
  /** Every enterprise's open runs, from the open-runs items (one Query of `gsi1`), by enterprise id. */
  listOpenRuns(): Promise<OpenRuns[]>;
}

/** Whether a cancelled transaction lost to another one on the same item (a flood on one enterprise's admission). */
function isConflict(error: TransactionCanceledException): boolean {
  return (error.CancellationReasons ?? []).some((reason) => reason.Code === 'TransactionConflict');
}

/** The admission control of the DynamoDB run store: the open-runs item of each enterprise (see `openRunsKey`). */
export function createDynamoRunAdmission(options: {
  documents: DynamoDBDocumentClient;
  tableName: string;
  maxOpenRuns: number;
}): DynamoRunAdmission {
  const { documents, tableName, maxOpenRuns } = options;
  return {
    async putNewRun(item, run) {
      try {
        await documents.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Put: {
                  TableName: tableName,
                  Item: item,
                  ConditionExpression: 'attribute_not_exists(pk)',
                  // NOTE: a replay's stored run comes back with the refusal: no second read (a triggered run is
                  // queued by its trigger, so the Diagnose function's start is always such a replay).
                  ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
                },
              },
              {
                Update: {
                  TableName: tableName,
                  Key: openRunsKey(run.enterpriseId),
                  UpdateExpression:
                    'ADD open_run_ids :run SET entity = :entity, enterprise_id = :enterprise, gsi1pk = :index, gsi1sk = :tenant',
                  ConditionExpression: 'attribute_not_exists(open_run_ids) OR size(open_run_ids) < :max',
                  ExpressionAttributeValues: {
                    ':run': new Set([run.runId]),
                    ':entity': 'tenant_open_runs',
                    ':enterprise': run.enterpriseId,
                    ':index': OPEN_RUNS_INDEX_KEY,
                    ':tenant': `TENANT#${run.enterpriseId}`,
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
        if (runReason.Item !== undefined) return { started: false, run: runOf(unmarshall(runReason.Item)) };
        // NOTE: an engine that does not return the refused item (DynamoDB returns it): read it.
        const { Item } = await documents.send(
          new GetCommand({ TableName: tableName, Key: runKey(run.runId), ConsistentRead: true }),
        );
        if (Item === undefined) throw new RunStoreError('RUN_NOT_FOUND', 'the run vanished during start');
        return { started: false, run: runOf(Item) };
      }
    },

    async forget(enterpriseId, runId) {
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
    },

    async listOpenRuns() {
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
          const runs = openRunsOf(item);
          if (runs !== null) open.push(runs);
        }
        startKey = page.LastEvaluatedKey;
      } while (startKey !== undefined);
      return open.sort((a, b) => (a.enterpriseId < b.enterpriseId ? -1 : 1));
    },
  };
}
