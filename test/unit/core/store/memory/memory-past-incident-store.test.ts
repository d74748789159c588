import { createMemoryPastIncidentStore } from '@diagnosis/core/store';
import { describePastIncidentStoreContract } from '../../../../contract/past-incident-store-contract.ts';

describePastIncidentStoreContract('in-memory fake', async () => {
  const incidents = createMemoryPastIncidentStore();
  return {
    incidents,
    rawItems: async (enterpriseId) =>
      [...incidents.items.values()].filter((item) => item.pk === `PAST#${enterpriseId}`),
    cleanup: async () => undefined,
  };
});
