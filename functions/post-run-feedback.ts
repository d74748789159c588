/**
 * `POST /runs/{runId}/feedback` on the IAM-only InternalApi: a responder's verdict on an ended run, idempotent per IAM
 * caller, re-ratings kept, its texts masked with the run's masking. It may read run items, write feedback items, and
 * read and add to runs' pseudonym maps, and remember or retract the run's past incident (sst.config.ts).
 */

import { createFeedbackHandler } from './api/feedback-handler.ts';
import { createObservability } from './lambda/observability.ts';
import { loadFeedbackStore } from './ratings/feedback-store.ts';

const { store, feedback, policy, masking, memory } = await loadFeedbackStore();

export const handler = createFeedbackHandler(
  { store, feedback, masking, memory },
  { ...createObservability('RunFeedback'), policy },
);
