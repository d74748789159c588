import { createMemoryDeliveryStore } from '../../../../functions/delivery/memory-delivery-store.ts';
import { describeDeliveryStoreContract } from '../../../contract/delivery-store-contract.ts';

describeDeliveryStoreContract('in memory', async (options) => {
  const store = createMemoryDeliveryStore(options);
  return { store, rawItem: async (key) => store.items.get(`${key.pk}|${key.sk}`) };
});
