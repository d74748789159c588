/**
 * DynamoDB Streams (the table, NEW_AND_OLD_IMAGES): every run that ends puts one `Diagnosis Run Finished` on the
 * results bus, whatever closed it (see functions/delivery/publish-run-finished.ts).
 */

import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { parsePublishSettings } from './delivery/delivery-settings.ts';
import { createRunFinishedStreamHandler } from './handlers/run-finished-stream-handler.ts';
import { coldStart } from './setup/cold-start.ts';
import { readLinkedEnvironment } from './setup/linked-environment.ts';
import { createObservability } from './setup/observability.ts';

const deps = await coldStart(() => {
  const settings = parsePublishSettings(readLinkedEnvironment());
  return {
    events: new EventBridgeClient({ maxAttempts: 3 }),
    busName: settings.DIAGNOSIS_RESULTS_BUS,
    event: { apiUrl: settings.DIAGNOSIS_API_URL ?? null, price: settings.DELIVERY_PRICE ?? null },
  };
});

export const handler = createRunFinishedStreamHandler(deps, createObservability('OnRunFinished'));
