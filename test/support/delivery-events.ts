/**
 * Lambda's SQS event as AWS documents it, for the delivery queue: EventBridge's rule puts the whole event (its
 * envelope) as each message's body; `ApproximateReceiveCount` counts the receives.
 */
import { createHash } from 'node:crypto';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import {
  buildRunFinishedEvent,
  envelopeOf,
  type RunFinishedEnvelope,
  type RunFinishedInput,
} from '../../functions/delivery/run-finished-event.ts';

export const QUEUE_ARN = 'arn:aws:sqs:eu-west-1:123456789012:diagnosis-agent-ci-DeliveryQueue';
export const QUEUE_URL = 'https://sqs.eu-west-1.amazonaws.com/123456789012/diagnosis-agent-ci-DeliveryQueue';

/** The event EventBridge delivers for a run (as the stream handler put it). */
export function deliveredEnvelope(run: RunFinishedInput, id = `evt-${run.runId}`): RunFinishedEnvelope {
  return envelopeOf(buildRunFinishedEvent(run), {
    id,
    time: '2026-11-30T06:10:31Z',
    account: '123456789012',
    region: 'eu-west-1',
  });
}

export function sqsRecord(body: string, receiveCount: number, messageId = `msg-${receiveCount}`): SQSRecord {
  return {
    messageId,
    receiptHandle: `receipt-${messageId}-${receiveCount}`,
    body,
    attributes: {
      ApproximateReceiveCount: String(receiveCount),
      SentTimestamp: '1764483031000',
      SenderId: 'AIDAIENQZJOLO23YVJ4VO',
      ApproximateFirstReceiveTimestamp: '1764483031500',
    },
    messageAttributes: {},
    md5OfBody: createHash('md5').update(body).digest('hex'),
    eventSource: 'aws:sqs',
    eventSourceARN: QUEUE_ARN,
    awsRegion: 'eu-west-1',
  };
}

export function sqsEvent(...records: SQSRecord[]): SQSEvent {
  return { Records: records };
}
