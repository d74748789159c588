/**
 * SQS (the results bus's rule → the delivery queue, with its dead-letter queue): each result delivered to its
 * enterprise's Slack, SNS and webhook destinations (see functions/delivery/deliver-run-result.ts). The destinations'
 * secrets are SST secrets linked to this function, read here, once, at cold start.
 */

import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import { createDynamoClient, createDynamoRunStore } from '@diagnosis/core/store';
import { Resource } from 'sst/resource';
import { MAX_DELIVERY_RECEIVES } from './delivery/delivery-metric-names.ts';
import { createDeliveryQueueHandler } from './delivery/delivery-queue-handler.ts';
import { parseDeliverSettings } from './delivery/delivery-settings.ts';
import { createDynamoDeliveryStore } from './delivery/delivery-store.ts';
import { createDestinationSender } from './delivery/destination-senders.ts';
import { resolveDestinations } from './delivery/destinations.ts';
import { coldStart } from './lambda/cold-start.ts';
import { readLinkedEnvironment } from './lambda/linked-environment.ts';
import { resolveMaskingSecret } from './lambda/masking-secret.ts';
import { createObservability } from './lambda/observability.ts';

/** A linked SST secret's value, or undefined when it is not linked. */
function secretOf(name: string): string | undefined {
  try {
    const value = (Resource as unknown as Record<string, { value?: unknown } | undefined>)[name]?.value;
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

const observability = createObservability('DeliverResults');
const { deps, options } = await coldStart(() => {
  const settings = parseDeliverSettings(readLinkedEnvironment());
  const client = createDynamoClient(settings, process.env);
  const tableName = settings.DIAGNOSIS_TABLE_NAME;
  const now = Date.now;
  const runs = createDynamoRunStore({ client, tableName });
  return {
    deps: {
      runs,
      deliveries: createDynamoDeliveryStore({ client, tableName, retentionDays: settings.RETENTION_DAYS }),
      destinations: resolveDestinations(settings.DELIVERY_DESTINATIONS, secretOf),
      send: createDestinationSender({
        sns: new SNSClient({ maxAttempts: 2 }),
        timeoutMs: settings.DELIVERY_TIMEOUT_MS,
        now,
      }),
      now,
      event: { apiUrl: settings.DIAGNOSIS_API_URL ?? null, price: settings.DELIVERY_PRICE ?? null },
      // NOTE: longer than the function's timeout (30 s), so a crashed attempt is retried by the next receive.
      leaseMs: 45_000,
      // Only where the stage file opts an enterprise in: then, and only then, the deploy links MaskingKey and grants
      // the PSEUDONYMS#<runId> partitions (docs/masking.md).
      ...(settings.DELIVERY_REVEAL.length === 0
        ? {}
        : {
            reveal: {
              enterprises: new Set(settings.DELIVERY_REVEAL),
              pseudonyms: runs,
              secret: resolveMaskingSecret(settings),
            },
          }),
    },
    options: {
      sqs: new SQSClient({ maxAttempts: 2 }),
      queueUrl: settings.DELIVERY_QUEUE_URL,
      maxReceives: MAX_DELIVERY_RECEIVES,
    },
  };
});

export const handler = createDeliveryQueueHandler(deps, { ...observability, ...options });
