import { createMemoryChangeStore } from '@diagnosis/core/store';
import { describeChangeStoreContract } from '../../../../contract/change-store-contract.ts';

describeChangeStoreContract('in-memory fake', async () => {
  const changes = createMemoryChangeStore();
  return {
    changes,
    rawItems: async (enterpriseId) =>
      [...changes.items.values()].filter((item) => item.pk === `CHANGES#${enterpriseId}`),
    cleanup: async () => undefined,
  };
});
