import { createMemoryAuditWriter, createMemoryRunStore, type MemoryTable } from '@diagnosis/core/store';
import { describeAuditWriterContract } from '../../../../contract/audit-writer-contract.ts';

describeAuditWriterContract('in-memory twin', async ({ now, reasoningRetentionDays }) => {
  // NOTE: the two adapters share one table, as the DynamoDB ones do.
  const table: MemoryTable = new Map();
  const store = createMemoryRunStore({ now, table });
  const audit = createMemoryAuditWriter({
    table,
    now,
    ...(reasoningRetentionDays === undefined ? {} : { reasoningRetentionDays }),
  });
  return {
    audit,
    store,
    rawItems: async (runId) =>
      [...table.values()].filter((item) =>
        [`RUN#${runId}`, `REASONING#${runId}`, `PSEUDONYMS#${runId}`].includes(item.pk),
      ),
    cleanup: async () => undefined,
  };
});
