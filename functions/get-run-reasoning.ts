/** `GET /runs/{runId}/reasoning` on the IAM-only InternalApi: the model's raw reasoning per round, a function and a route of its own so that IAM grants it apart from the audit trail. */

import { loadReadStore } from './api/read-store.ts';
import { createGetRunReasoningHandler } from './api/run-queries.ts';
import { createObservability } from './lambda/observability.ts';

const { store, policy } = await loadReadStore();

export const handler = createGetRunReasoningHandler(store, { ...createObservability('GetRunReasoning'), policy });
