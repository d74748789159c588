import { AuditWriteError } from '../../errors.ts';
import type { ModelStepEvent, PseudonymBatchEvent, ToolInvocationEvent } from '../audit-hook.ts';
import type { AuditFlushReport, AuditWriter } from '../audit-writer.ts';
import type { Item } from '../items/item.ts';
import { stepItems } from '../items/model-step-items.ts';
import { pseudonymItem } from '../items/pseudonym-item.ts';
import { createToolSortKeys, toolItem } from '../items/tool-item.ts';
import { type MemoryTable, memoryKeyOf } from './memory-table.ts';

export interface MemoryAuditWriterOptions {
  /** The table it writes to: the one of the run's memory run store (`MemoryRunStore.items`), to read it back. */
  table: MemoryTable;
  now?: () => number;
  /** Days every item of a run is kept (its `ttl`; nothing expires in memory, the value is only recorded). */
  retentionDays?: number;
  /** Days a run's raw reasoning is kept (default: `retentionDays`). */
  reasoningRetentionDays?: number;
  /** Days a run's pseudonym map is kept (default: `reasoningRetentionDays`). */
  pseudonymRetentionDays?: number;
  /**
   * Fault injection: an audit write of an item for which this returns true fails, and `flush` reports it as
   * `InjectedFailure` in its AuditWriteError, as the DynamoDB adapter reports a write refused by the table.
   */
  failWrite?: (item: Item) => boolean;
}

/**
 * The audit writer in memory, with the behaviour of the DynamoDB adapter (`createDynamoAuditWriter`): the same items
 * (built by the same item modules, with the same caps and schemas), conditional puts, write-behind with `flush`.
 * NOTE: the shared contract suite (`test/contract/audit-writer-contract.ts`) runs against both.
 */
export function createMemoryAuditWriter(options: MemoryAuditWriterOptions): AuditWriter {
  const { table } = options;
  const now = options.now ?? Date.now;
  const retentionDays = options.retentionDays ?? 90;
  const failures: { key: string; reason: string }[] = [];
  const pending: Promise<void>[] = [];
  const toolSortKeyOf = createToolSortKeys();

  function putBehind(item: Item): void {
    pending.push(
      Promise.resolve().then(() => {
        const key = memoryKeyOf(item);
        if (options.failWrite?.(item)) failures.push({ key, reason: 'InjectedFailure' });
        else if (table.has(key)) failures.push({ key, reason: 'ConditionalCheckFailedException' });
        else table.set(key, structuredClone(item));
      }),
    );
  }

  return {
    async onModelStep(event: ModelStepEvent) {
      for (const item of stepItems(event, now(), retentionDays, options.reasoningRetentionDays ?? retentionDays)) {
        putBehind(item);
      }
    },
    async onToolInvocation(event: ToolInvocationEvent) {
      putBehind(toolItem(event, now(), retentionDays, toolSortKeyOf(event)));
    },
    async onPseudonyms(event: PseudonymBatchEvent) {
      const days = options.pseudonymRetentionDays ?? options.reasoningRetentionDays ?? retentionDays;
      putBehind(pseudonymItem(event, now(), days));
    },
    async flush(): Promise<AuditFlushReport> {
      while (pending.length > 0) await Promise.all(pending.splice(0));
      if (failures.length > 0) throw new AuditWriteError(failures.splice(0));
      // NOTE: a write in memory lands or fails at once: it is never retried.
      return { retriedWrites: [] };
    },
  };
}
