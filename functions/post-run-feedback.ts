/**
 * `POST /runs/{runId}/feedback` on the IAM-only InternalApi: a responder's verdict on an ended run, idempotent per IAM
 * caller, re-ratings kept. It may read run items and write feedback items only (sst.config.ts).
 */

import { createFeedbackHandler } from './handlers/feedback-handler.ts';
import { loadFeedbackStore } from './setup/feedback-store.ts';
import { createObservability } from './setup/observability.ts';

const { store, feedback, policy } = await loadFeedbackStore();

export const handler = createFeedbackHandler({ store, feedback }, { ...createObservability('RunFeedback'), policy });
