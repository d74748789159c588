/** `GET /runs/{runId}/audit` on the IAM-only InternalApi: steps and tool invocations, never raw reasoning. */

import middy from '@middy/core';
import type { HttpApiEvent } from './runtime/http.ts';
import { loadReadStore } from './runtime/read-store.ts';
import { createGetRunAuditHandler } from './runtime/run-queries.ts';

const { store, policy } = await loadReadStore();

export const handler = middy<HttpApiEvent>().handler(createGetRunAuditHandler(store, policy));
