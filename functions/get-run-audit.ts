/** `GET /runs/{runId}/audit` on the IAM-only InternalApi: steps and tool invocations, never raw reasoning. */

import { createGetRunAuditHandler } from './handlers/run-queries.ts';
import { createObservability } from './setup/observability.ts';
import { loadReadStore } from './setup/read-store.ts';

const { store, policy } = await loadReadStore();

export const handler = createGetRunAuditHandler(store, { ...createObservability('GetRunAudit'), policy });
