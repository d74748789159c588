/**
 * The delivery's deployment as data (issue #21, docs/delivery.md): the stream filter of the function that emits the
 * result events, the delivery function's destinations as it reads them, and the SNS topics to create. Pure functions
 * of the stage file's `delivery` section, so the tests read exactly what `sst.config.ts` deploys.
 */
import {
  type DeliverySettings,
  destinationSecretNames,
  type RuntimeDestination,
  revealEnterprises,
  snsTopicResourceName,
} from '@diagnosis/functions/infrastructure';

export { destinationSecretNames, revealEnterprises };

/**
 * Lambda's filter on the table's stream: a run item (`sk = RUN`) modified from QUEUED or RUNNING into an ended
 * status. NOTE: only these records invoke the function (filtered records cost nothing); the function checks the
 * same transition again (`isRunFinishing`), so the filter is an optimisation, never the rule.
 */
export const RUN_FINISHED_STREAM_FILTERS = Object.freeze([
  {
    eventName: ['MODIFY'],
    dynamodb: {
      Keys: { sk: { S: ['RUN'] } },
      OldImage: { status: { S: ['QUEUED', 'RUNNING'] } },
      NewImage: { status: { S: ['SUCCEEDED', 'FALLBACK', 'FAILED', 'CANCELLED'] } },
    },
  },
]);

/** One SNS topic per SNS destination, named by enterprise and destination. */
export function deliveryTopics(
  settings: DeliverySettings,
): { resourceName: string; enterpriseId: string; destinationId: string; emails: string[] }[] {
  return Object.entries(settings.destinations).flatMap(([enterpriseId, list]) =>
    list.flatMap((destination) =>
      destination.type === 'sns'
        ? [
            {
              resourceName: snsTopicResourceName(enterpriseId, destination.id),
              enterpriseId,
              destinationId: destination.id,
              emails: destination.emails,
            },
          ]
        : [],
    ),
  );
}

/** The delivery function's `DELIVERY_DESTINATIONS` before JSON: SNS destinations by their topic's ARN. */
export function runtimeDestinations<V>(
  settings: DeliverySettings,
  topicArnOf: (resourceName: string) => V,
): Record<string, (Exclude<RuntimeDestination, { type: 'sns' }> | { id: string; type: 'sns'; topicArn: V })[]> {
  return Object.fromEntries(
    Object.entries(settings.destinations).map(([enterpriseId, list]) => [
      enterpriseId,
      list.map((destination) =>
        destination.type === 'sns'
          ? {
              id: destination.id,
              type: 'sns' as const,
              topicArn: topicArnOf(snsTopicResourceName(enterpriseId, destination.id)),
            }
          : destination,
      ),
    ]),
  );
}
