/** `GET /runs/{runId}/reasoning` on the IAM-only InternalApi: the model's raw reasoning per round, a function and a route of its own so that IAM grants it apart from the audit trail. */

import { createGetRunReasoningHandler } from './handlers/run-queries.ts';
import { createObservability } from './setup/observability.ts';
import { loadReadStore } from './setup/read-store.ts';

const { store, policy } = await loadReadStore();

export const handler = createGetRunReasoningHandler(store, { ...createObservability('GetRunReasoning'), policy });
