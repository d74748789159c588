import { createMemoryIncidentStore } from '@diagnosis/core/store';
import { describeIncidentStoreContract } from '../../../../contract/incident-store-contract.ts';

describeIncidentStoreContract('in-memory twin', async () => ({
  store: createMemoryIncidentStore(),
  cleanup: async () => undefined,
}));
