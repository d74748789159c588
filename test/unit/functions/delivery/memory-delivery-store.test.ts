import { createMemoryDeliveryStore } from '../../../../functions/delivery/memory-delivery-store.ts';
import { describeDeliveryStoreContract } from '../../../contract/delivery-store-contract.ts';

describeDeliveryStoreContract('in memory', async () => createMemoryDeliveryStore());
