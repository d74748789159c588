/**
 * `GET /runs/{runId}/reasoning` on the IAM-only InternalApi: the model's raw reasoning per round. A function and a
 * route of its own, so that IAM grants it apart from the audit trail.
 */

import middy from '@middy/core';
import type { HttpApiEvent } from './runtime/http.ts';
import { loadReadStore } from './runtime/read-store.ts';
import { createGetRunReasoningHandler } from './runtime/run-queries.ts';

const { store, policy } = await loadReadStore();

export const handler = middy<HttpApiEvent>().handler(createGetRunReasoningHandler(store, policy));
