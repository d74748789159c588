import { createMemoryRunStore } from '@diagnosis/core/store';
import { describeRunStoreContract } from '../../../../contract/run-store-contract.ts';

describeRunStoreContract('in-memory fake', async ({ now, sessionPageSize, maxOpenRuns }) => {
  const store = createMemoryRunStore({
    now,
    ...(sessionPageSize === undefined ? {} : { sessionPageSize }),
    ...(maxOpenRuns === undefined ? {} : { maxOpenRuns }),
  });
  return {
    store,
    rawItems: async (runId) =>
      [...store.items.values()].filter((item) =>
        [`RUN#${runId}`, `REASONING#${runId}`, `PSEUDONYMS#${runId}`].includes(item.pk),
      ),
    cleanup: async () => undefined,
  };
});
