/**
 * DynamoDB Streams (the table, NEW_AND_OLD_IMAGES): every run that ends puts one `Diagnosis Run Finished` on the
 * results bus, whatever closed it (see functions/delivery/publish-run-finished.ts).
 */

import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { parsePublishSettings } from './delivery/delivery-settings.ts';
import { createRunFinishedStreamHandler } from './delivery/run-finished-stream-handler.ts';
import { coldStart } from './lambda/cold-start.ts';
import { readLinkedEnvironment } from './lambda/linked-environment.ts';
import { createObservability } from './lambda/observability.ts';

const deps = await coldStart(() => {
  const settings = parsePublishSettings(readLinkedEnvironment());
  return {
    events: new EventBridgeClient({ maxAttempts: 3 }),
    busName: settings.DIAGNOSIS_RESULTS_BUS,
    event: { apiUrl: settings.DIAGNOSIS_API_URL ?? null, price: settings.DELIVERY_PRICE ?? null },
  };
});

export const handler = createRunFinishedStreamHandler(deps, createObservability('OnRunFinished'));
