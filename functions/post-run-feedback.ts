/**
 * `POST /runs/{runId}/feedback` on the IAM-only InternalApi: a responder's verdict on an ended run, idempotent per IAM
 * caller, re-ratings kept, its texts masked with the run's masking, the run's past incident remembered or retracted
 * (functions/ratings/). It may read run items and do what a rating does of the table, nothing else (sst.config.ts).
 */

import { createFeedbackHandler } from './api/feedback-handler.ts';
import { loadRunFeedback } from './api/run-feedback.ts';
import { createObservability } from './lambda/observability.ts';

const { store, policy, rate } = await loadRunFeedback();

export const handler = createFeedbackHandler({ store, rate }, { ...createObservability('RunFeedback'), policy });
