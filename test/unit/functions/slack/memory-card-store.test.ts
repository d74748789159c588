import { createMemoryCardStore } from '../../../../functions/slack/memory-card-store.ts';
import { describeCardStoreContract } from '../../../contract/card-store-contract.ts';

describeCardStoreContract('in memory', async () => {
  const store = createMemoryCardStore();
  return { store, rawItem: async (key) => store.items.get(`${key.pk}|${key.sk}`) };
});
