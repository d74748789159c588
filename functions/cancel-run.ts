/**
 * `POST /runs/{runId}/cancel` on the IAM-only InternalApi: a QUEUED run ends CANCELLED at once; a RUNNING one is
 * asked to stop (its invocation sees the flag within a few seconds) and its workflow execution is stopped.
 */

import { createCancelRunHandler } from './api/cancel-handler.ts';
import { loadRunControl } from './api/run-control.ts';
import { createObservability } from './lambda/observability.ts';

const { store, workflow, policy } = await loadRunControl();

export const handler = createCancelRunHandler({ store, workflow }, { ...createObservability('CancelRun'), policy });
