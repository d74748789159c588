import { createMemoryTenantLeaseStore } from '@diagnosis/core/store';
import { describeTenantLeaseContract } from '../../../../contract/tenant-lease-contract.ts';

describeTenantLeaseContract('in-memory twin', async ({ now }) => ({
  store: createMemoryTenantLeaseStore({ now }),
  cleanup: async () => undefined,
}));
