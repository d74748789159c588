/**
 * EventBridge: a CloudWatch alarm that entered ALARM starts a diagnosis when the stage file's `triggers` map it (one
 * run per incident; later events attach to it).
 */

import { createObservability } from './lambda/observability.ts';
import { createTriggerHandler } from './triggers/trigger-handler.ts';
import { loadTrigger } from './triggers/trigger-setup.ts';

const { deps } = await loadTrigger();

export const handler = createTriggerHandler(deps, createObservability('Trigger'));
