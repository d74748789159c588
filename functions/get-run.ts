/** `GET /runs/{runId}` on the IAM-only InternalApi: a run's status and published result. */

import { createGetRunHandler } from './handlers/run-queries.ts';
import { createObservability } from './setup/observability.ts';
import { loadRunReader } from './setup/read-store.ts';

const { store, incidents, policy } = await loadRunReader();

export const handler = createGetRunHandler(store, { ...createObservability('GetRun'), policy, incidents });
