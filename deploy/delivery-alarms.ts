/**
 * The delivery's alarms (issue #21), added to the stage's by `buildAlarmDefinitions`. Thresholds are settings of the
 * stage file's `alarms` object; the defaults and why:
 * - `deliveryDeadLettered` 1: a run × destination given up after its last try is a result nobody received; each
 *   one is worth a look (its record on the run says which destination and why).
 * - `deliveryDeadLetterMessages` 1: any message in DeliveryDeadLetters (a delivery given up, or a stream batch that
 *   could not be put on the bus) waits for a redrive; the alarm holds while it waits.
 * - `deliveryAttemptsFailed` 5 per period: single failures are retried with backoff and usually heal; five in a
 *   period is a destination that is down or refusing us (a revoked Slack webhook answers 403/404).
 * - `resultEventsPublishFailed` 1: the bus refused result events; the stream retries them, but no subscriber has them.
 * - `deliveryQueueAgeSeconds` 1800: the oldest delivery waiting half an hour means deliveries are stuck or backing off
 *   for a long time (the last backoff is 4 minutes).
 */

import {
  DELIVERY_METRICS,
  METRICS_NAMESPACE,
  SERVICE_DIMENSION,
  SERVICE_NAME,
} from '@diagnosis/functions/infrastructure';
import * as v from 'valibot';
import { awsMetric, type MetricQuery, serviceMetric } from './metric-queries.ts';

const count = (minimum: number) => v.pipe(v.number(), v.safeInteger(), v.minValue(minimum));

export const deliveryAlarmSettingsEntries = {
  deliveryDeadLettered: v.optional(count(1), 1),
  deliveryDeadLetterMessages: v.optional(count(1), 1),
  deliveryAttemptsFailed: v.optional(count(1), 5),
  resultEventsPublishFailed: v.optional(count(1), 1),
  deliveryQueueAgeSeconds: v.optional(v.pipe(v.number(), v.minValue(60), v.maxValue(1_209_600)), 1_800),
};

type DeliveryAlarmSettings = { periodSeconds: number } & {
  [Key in keyof typeof deliveryAlarmSettingsEntries]: v.InferOutput<(typeof deliveryAlarmSettingsEntries)[Key]>;
};

export function buildDeliveryAlarms<V, A>(
  queues: { queueName: V; deadLetterQueueName: V },
  settings: DeliveryAlarmSettings,
  alarm: (id: string, description: string, threshold: number, queries: MetricQuery<V>[]) => A,
): A[] {
  const period = settings.periodSeconds;
  const minutes = `${period / 60} min`;
  return [
    alarm(
      'DeliveriesDeadLettered',
      `Delivery: at least ${settings.deliveryDeadLettered} result(s) given up after the last try in ${minutes} (GET /runs/{id} shows which destination).`,
      settings.deliveryDeadLettered,
      [serviceMetric(DELIVERY_METRICS.deadLettered, period, 'Sum')],
    ),
    alarm(
      'DeliveryDeadLetterQueueDepth',
      `Delivery: at least ${settings.deliveryDeadLetterMessages} message(s) waiting in the dead-letter queue.`,
      settings.deliveryDeadLetterMessages,
      [
        awsMetric(
          'AWS/SQS',
          'ApproximateNumberOfMessagesVisible',
          { QueueName: queues.deadLetterQueueName },
          period,
          'Maximum',
        ),
      ],
    ),
    alarm(
      'DeliveryAttemptsFailed',
      `Delivery: at least ${settings.deliveryAttemptsFailed} failed attempt(s) in ${minutes} (a destination down or refusing).`,
      settings.deliveryAttemptsFailed,
      [serviceMetric(DELIVERY_METRICS.attemptsFailed, period, 'Sum')],
    ),
    alarm(
      'ResultEventsPublishFailed',
      `Result events: at least ${settings.resultEventsPublishFailed} event(s) the bus refused in ${minutes} (retried by the stream).`,
      settings.resultEventsPublishFailed,
      [serviceMetric(DELIVERY_METRICS.eventsPublishFailed, period, 'Sum')],
    ),
    alarm(
      'DeliveryQueueAge',
      `Delivery: the oldest waiting delivery is at least ${settings.deliveryQueueAgeSeconds / 60} min old.`,
      settings.deliveryQueueAgeSeconds,
      [awsMetric('AWS/SQS', 'ApproximateAgeOfOldestMessage', { QueueName: queues.queueName }, period, 'Maximum')],
    ),
  ];
}

/** The dashboard's delivery widgets' lines (CloudWatch's array form). */
export function deliveryDashboardLines<V>(queues: { queueName: V; deadLetterQueueName: V }) {
  const counter = (metricName: string, label: string) => [
    METRICS_NAMESPACE,
    metricName,
    SERVICE_DIMENSION,
    SERVICE_NAME,
    { stat: 'Sum', label },
  ];
  return {
    deliveries: [
      counter(DELIVERY_METRICS.eventsPublished, 'result events'),
      counter(DELIVERY_METRICS.delivered, 'delivered'),
      counter(DELIVERY_METRICS.attemptsFailed, 'failed attempts'),
      counter(DELIVERY_METRICS.deadLettered, 'dead-lettered'),
      counter(DELIVERY_METRICS.messagesDropped, 'dropped messages'),
      counter(DELIVERY_METRICS.eventsPublishFailed, 'events refused by the bus'),
    ],
    queues: [
      [
        'AWS/SQS',
        'ApproximateNumberOfMessagesVisible',
        'QueueName',
        queues.queueName,
        { stat: 'Maximum', label: 'waiting' },
      ],
      [
        'AWS/SQS',
        'ApproximateAgeOfOldestMessage',
        'QueueName',
        queues.queueName,
        { stat: 'Maximum', label: 'oldest (s)', yAxis: 'right' },
      ],
      [
        'AWS/SQS',
        'ApproximateNumberOfMessagesVisible',
        'QueueName',
        queues.deadLetterQueueName,
        { stat: 'Maximum', label: 'dead letters' },
      ],
    ],
  };
}
