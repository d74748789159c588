/**
 * EventBridge: a CloudTrail management write call recorded as a change when the stage file's CloudTrail sources map
 * its account and region (functions/changes/change-event-handler.ts).
 */

import { createChangeEventHandler } from './changes/change-event-handler.ts';
import { loadChanges } from './changes/change-setup.ts';
import { createObservability } from './lambda/observability.ts';

export const handler = createChangeEventHandler(await loadChanges(), createObservability('ChangeEvents'));
