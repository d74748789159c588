import { createMemoryRunStore } from '@diagnosis/core/store';
import { describeRunStoreContract } from '../../contract/run-store-contract.ts';

describeRunStoreContract('in-memory fake', async ({ now, sessionPageSize, reasoningRetentionDays, maxOpenRuns }) => {
  const store = createMemoryRunStore({
    now,
    ...(sessionPageSize === undefined ? {} : { sessionPageSize }),
    ...(reasoningRetentionDays === undefined ? {} : { reasoningRetentionDays }),
    ...(maxOpenRuns === undefined ? {} : { maxOpenRuns }),
  });
  return {
    store,
    rawItems: async (runId) =>
      [...store.items.values()].filter((item) => item.pk === `RUN#${runId}` || item.pk === `REASONING#${runId}`),
    cleanup: async () => undefined,
  };
});
