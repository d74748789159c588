/** `GET /runs/{runId}` on the IAM-only InternalApi: a run's status and published result. */

import {
  createDynamoFeedbackStore,
  createDynamoIncidentStore,
  createDynamoPastIncidentStore,
} from '@diagnosis/core/store';
import { loadReadStore } from './api/read-store.ts';
import { createGetRunHandler } from './api/run-queries.ts';
import { createDynamoDeliveryStore } from './delivery/delivery-store.ts';
import { createObservability } from './lambda/observability.ts';

const { store, policy, table } = await loadReadStore();

export const handler = createGetRunHandler(store, {
  ...createObservability('GetRun'),
  policy,
  deliveries: createDynamoDeliveryStore(table),
  incidents: createDynamoIncidentStore(table),
  feedback: createDynamoFeedbackStore(table),
  pastIncidents: createDynamoPastIncidentStore(table),
});
