/** `GET /runs/{runId}/audit` on the IAM-only InternalApi: steps and tool invocations, never raw reasoning. */

import { loadReadStore } from './api/read-store.ts';
import { createGetRunAuditHandler } from './api/run-queries.ts';
import { createObservability } from './lambda/observability.ts';

const { store, policy } = await loadReadStore();

export const handler = createGetRunAuditHandler(store, { ...createObservability('GetRunAudit'), policy });
