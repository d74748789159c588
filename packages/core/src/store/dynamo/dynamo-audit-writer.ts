import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { AuditWriteError, safeErrorName } from '../../errors.ts';
import { DEFAULT_AUDIT_WRITES_IN_FLIGHT } from '../../run/audit-write-limits.ts';
import type { ModelStepEvent, PseudonymBatchEvent, ToolInvocationEvent } from '../audit-hook.ts';
import type { AuditFlushReport, AuditWriter, RetriedAuditWrite, RunWriteBudget } from '../audit-writer.ts';
import type { Item } from '../items/item.ts';
import { stepItems } from '../items/model-step-items.ts';
import { pseudonymItem } from '../items/pseudonym-item.ts';
import { createToolSortKeys, toolItem } from '../items/tool-item.ts';
import { createWriteQueue } from '../write-queue.ts';
import { type AuditPutOptions, putAuditItemsTogether } from './put-audit-item.ts';
import { createRunDocumentClient } from './run-document-client.ts';

export interface DynamoAuditWriterOptions {
  /** A DynamoDB client built once per cold start (its own retry policy applies to storage writes only). */
  client: DynamoDBClient;
  tableName: string;
  /** Days every item of a run is kept (its `ttl`). */
  retentionDays?: number;
  /** Days a run's raw reasoning is kept (default: `retentionDays`). */
  reasoningRetentionDays?: number;
  /** Days a run's pseudonym map is kept (default: `reasoningRetentionDays`). */
  pseudonymRetentionDays?: number;
  now?: () => number;
  /**
   * Audit puts this writer has in flight at once (default {@link DEFAULT_AUDIT_WRITES_IN_FLIGHT}); the rest wait in
   * its write-behind queue. The writer is built per run, so this bounds one run's writes. `Infinity`: no bound.
   */
  maxWritesInFlight?: number;
  /** The wait between the writer's own tries of a transiently failed put (a test's clock; default a timer). */
  sleep?: AuditPutOptions['sleep'];
  /**
   * Aborts when the run's writes must be over ({@link RunWriteBudget}): until then a transiently failed put is tried
   * again however often; after it none is tried, and one in flight is abandoned. Absent: at most `AUDIT_PUT_TRIES`.
   */
  writeBudget?: AbortSignal;
}

/**
 * The audit writer on the DynamoDB table. Writes are write-behind: `onModelStep`, `onToolInvocation` and
 * `onPseudonyms` queue their puts and return; at most `maxWritesInFlight` run at once, writes to the same item key in
 * the order they were queued; `flush` waits for them all and names any that failed. Every put is conditional
 * (`attribute_not_exists`): nothing written is ever overwritten, and a second record for the same tool call id is an
 * integrity error, never an overwrite. A transient failure is tried again, bounded, and a retried put that finds its
 * own item already written is done (`putAuditItem`): a loaded machine or a throttled partition does not fail a run
 * that has already spent its model calls.
 */
export function createDynamoAuditWriter(options: DynamoAuditWriterOptions): AuditWriter {
  const documents = createRunDocumentClient(options.client);
  const { tableName } = options;
  const retentionDays = options.retentionDays ?? 90;
  const reasoningRetentionDays = options.reasoningRetentionDays ?? retentionDays;
  const pseudonymRetentionDays = options.pseudonymRetentionDays ?? reasoningRetentionDays;
  const now = options.now ?? Date.now;
  const pending: Promise<void>[] = [];
  const failures: { key: string; reason: string }[] = [];
  const retried: RetriedAuditWrite[] = [];
  const writes = createWriteQueue(options.maxWritesInFlight ?? DEFAULT_AUDIT_WRITES_IN_FLIGHT);
  const toolSortKeyOf = createToolSortKeys();
  const putOptions: AuditPutOptions = {
    ...(options.sleep === undefined ? {} : { sleep: options.sleep }),
    ...(options.writeBudget === undefined ? {} : { budget: options.writeBudget }),
  };

  /** Queues the put of `items` (one, or a round's step and reasoning together), keyed by the first one's key. */
  function putBehind(...items: [Item, ...Item[]]): void {
    const key = `${items[0].pk}|${items[0].sk}`;
    // NOTE: writes to the same key go out in the order they were emitted, so the conditional put keeps the first one,
    // not whichever reached DynamoDB first; and however many events a round emits, only `maxWritesInFlight` puts of
    // this run's one partition are on the wire at once.
    const write = writes
      .enqueue(key, async () => {
        const landed = await putAuditItemsTogether(documents, tableName, items, putOptions);
        if (landed.attempts > 1) retried.push({ key, ...landed });
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
      // NOTE: one request for the round's two items (one transaction, each keeping its condition), not one each.
      putBehind(...stepItems(event, now(), retentionDays, reasoningRetentionDays));
    },

    async onToolInvocation(event: ToolInvocationEvent) {
      putBehind(toolItem(event, now(), retentionDays, toolSortKeyOf(event)));
    },

    async onPseudonyms(event: PseudonymBatchEvent) {
      putBehind(pseudonymItem(event, now(), pseudonymRetentionDays));
    },

    async flush(): Promise<AuditFlushReport> {
      while (pending.length > 0) await Promise.all(pending.splice(0));
      if (failures.length > 0) throw new AuditWriteError(failures.splice(0));
      return { retriedWrites: retried.splice(0) };
    },
  };
}
