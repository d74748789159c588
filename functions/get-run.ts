/** `GET /runs/{runId}` on the IAM-only InternalApi: a run's status and published result. */

import {
  createDynamoFeedbackStore,
  createDynamoIncidentStore,
  createDynamoPastIncidentStore,
} from '@diagnosis/core/store';
import { createDynamoDeliveryStore } from './delivery/delivery-store.ts';
import { createGetRunHandler } from './handlers/run-queries.ts';
import { createObservability } from './setup/observability.ts';
import { loadReadStore } from './setup/read-store.ts';

const { store, policy, table } = await loadReadStore();

export const handler = createGetRunHandler(store, {
  ...createObservability('GetRun'),
  policy,
  deliveries: createDynamoDeliveryStore(table),
  incidents: createDynamoIncidentStore(table),
  feedback: createDynamoFeedbackStore(table),
  pastIncidents: createDynamoPastIncidentStore(table),
});
