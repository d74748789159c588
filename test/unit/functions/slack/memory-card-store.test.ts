import { createMemoryCardStore } from '../../../../functions/slack/memory-card-store.ts';
import { describeCardStoreContract } from '../../../contract/card-store-contract.ts';

describeCardStoreContract('in memory', async (options) => {
  const store = createMemoryCardStore(options);
  return { store, rawItem: async (key) => store.items.get(`${key.pk}|${key.sk}`) };
});
