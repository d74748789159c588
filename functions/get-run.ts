/** `GET /runs/{runId}` on the IAM-only InternalApi: a run's status and published result. */

import { createGetRunHandler } from './handlers/run-queries.ts';
import { loadFeedbackStore } from './setup/feedback-store.ts';
import { createObservability } from './setup/observability.ts';

const { store, feedback, policy } = await loadFeedbackStore();

export const handler = createGetRunHandler(store, { ...createObservability('GetRun'), policy, feedback });
