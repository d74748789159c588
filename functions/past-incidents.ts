/**
 * `GET /enterprises/{enterpriseId}/past-incidents` and `DELETE /enterprises/{enterpriseId}/past-incidents/{runId}` on
 * the IAM-only InternalApi: an enterprise's past incidents, listed or forgotten, tenant-checked. It may read, put and
 * delete past-incident items (`PAST#*`) only (sst.config.ts).
 */

import { createDynamoPastIncidentStore } from '@diagnosis/core/store';
import { createPastIncidentsHandler } from './handlers/past-incidents-handler.ts';
import { createObservability } from './setup/observability.ts';
import { loadReadStore } from './setup/read-store.ts';

const { policy, table } = await loadReadStore();

export const handler = createPastIncidentsHandler(createDynamoPastIncidentStore(table), {
  ...createObservability('PastIncidents'),
  policy,
});
