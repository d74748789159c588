/** `GET /runs/{runId}` on the IAM-only InternalApi: a run's status and published result. */

import middy from '@middy/core';
import type { HttpApiEvent } from './runtime/http.ts';
import { loadReadStore } from './runtime/read-store.ts';
import { createGetRunHandler } from './runtime/run-queries.ts';

const { store, policy } = await loadReadStore();

export const handler = middy<HttpApiEvent>().handler(createGetRunHandler(store, policy));
