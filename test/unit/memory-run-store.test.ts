import { describeRunStoreContract } from '../contract/run-store-contract.ts';
import { createMemoryRunStore } from '../support/memory-run-store.ts';

describeRunStoreContract('in-memory fake', async ({ now, sessionPageSize }) => {
  const store = createMemoryRunStore({ now, ...(sessionPageSize === undefined ? {} : { sessionPageSize }) });
  return {
    store,
    rawItems: async (runId) => [...store.items.values()].filter((item) => item.pk === `RUN#${runId}`),
    cleanup: async () => undefined,
  };
});
