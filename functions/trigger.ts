/**
 * EventBridge: a CloudWatch alarm that entered ALARM starts a diagnosis when the stage file's `triggers` map it (one
 * run per incident; later events attach to it).
 */

import { createTriggerHandler } from './handlers/trigger-handler.ts';
import { createObservability } from './setup/observability.ts';
import { loadTrigger } from './setup/trigger-setup.ts';

const { deps } = await loadTrigger();

export const handler = createTriggerHandler(deps, createObservability('Trigger'));
