import { createMemoryPastIncidentStore, type MemoryTable } from '@diagnosis/core/store';
import { describePastIncidentStoreContract } from '../../../../contract/past-incident-store-contract.ts';

describePastIncidentStoreContract('in-memory fake', async () => {
  const table: MemoryTable = new Map();
  const incidents = createMemoryPastIncidentStore({ table });
  return {
    incidents,
    rawItems: async (enterpriseId) =>
      [...incidents.items.values()].filter((item) => item.pk === `PAST#${enterpriseId}`),
    putRawItem: async (item) => {
      table.set(`${item.pk}|${item.sk}`, structuredClone(item));
    },
    cleanup: async () => undefined,
  };
});
