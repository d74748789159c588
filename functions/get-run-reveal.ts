/**
 * `GET /runs/{runId}/reveal` on the IAM-only InternalApi: the real values behind a run's pseudonyms, a function and a
 * route of its own, so that IAM grants it apart from the audit trail and the reasoning (docs/masking.md).
 */

import { loadReadStore } from './api/read-store.ts';
import { createGetRunRevealHandler } from './api/run-queries.ts';
import { createObservability } from './lambda/observability.ts';

const { store, policy, maskingSecret } = await loadReadStore();

export const handler = createGetRunRevealHandler(store, {
  ...createObservability('GetRunReveal'),
  policy,
  maskingSecret,
});
