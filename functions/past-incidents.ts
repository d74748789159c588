/**
 * `GET /enterprises/{enterpriseId}/past-incidents` and `DELETE /enterprises/{enterpriseId}/past-incidents/{runId}` on
 * the IAM-only InternalApi: an enterprise's past incidents, listed or forgotten, tenant-checked. It may read, put and
 * delete past-incident items (`PAST#*`) only (sst.config.ts).
 */

import { createDynamoPastIncidentStore } from '@diagnosis/core/store';
import { createPastIncidentsHandler } from './api/past-incidents-handler.ts';
import { loadReadStore } from './api/read-store.ts';
import { createObservability } from './lambda/observability.ts';

const { policy, table } = await loadReadStore();

export const handler = createPastIncidentsHandler(createDynamoPastIncidentStore(table), {
  ...createObservability('PastIncidents'),
  policy,
});
