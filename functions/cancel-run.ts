/**
 * `POST /runs/{runId}/cancel` on the IAM-only InternalApi: a QUEUED run ends CANCELLED at once; a RUNNING one is
 * asked to stop (its invocation sees the flag within a few seconds) and its workflow execution is stopped.
 */

import { createCancelRunHandler } from './handlers/cancel-handler.ts';
import { createObservability } from './setup/observability.ts';
import { loadRunControl } from './setup/run-control.ts';

const { store, workflow, policy } = await loadRunControl();

export const handler = createCancelRunHandler({ store, workflow }, { ...createObservability('CancelRun'), policy });
