/**
 * The delivery's metrics (namespace `Diagnosis`, the service dimension only), named once: the handlers emit them and
 * `deploy/alarms.ts` and `deploy/dashboard.ts` watch them. Plain constants: the SST config loads this file.
 */
export const DELIVERY_METRICS = Object.freeze({
  /** Result events put on the bus. */
  eventsPublished: 'ResultEventsPublished',
  /** Stream records whose event could not be put (retried by the stream). */
  eventsPublishFailed: 'ResultEventsPublishFailed',
  /** A run × destination delivered. */
  delivered: 'Deliveries',
  /** One failed attempt (500, timeout, hang, network, SNS error); retried unless it was the last. */
  attemptsFailed: 'DeliveryAttemptsFailed',
  /** A run × destination given up after the last try: its message goes to the dead-letter queue. */
  deadLettered: 'DeliveriesDeadLettered',
  /** Messages not delivered at all: not an event of ours, an unknown or unfinished run, another enterprise's id. */
  messagesDropped: 'DeliveryMessagesDropped',
} as const);

/** How many receives a delivery message gets (the queue's `maxReceiveCount`), then the dead-letter queue. */
export const MAX_DELIVERY_RECEIVES = 5;

/** The visibility a failed message gets before its next receive: 30 s, doubling, at most 15 min. */
export function deliveryBackoffSeconds(receiveCount: number): number {
  return Math.min(900, 30 * 2 ** Math.max(0, receiveCount - 1));
}
