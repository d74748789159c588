/**
 * The network side of each destination: one attempt, bounded in time, answered with a stable code. NOTE: no
 * response body, exception text or URL is ever returned or logged (a Slack webhook URL is a credential); an
 * attempt fails as `HTTP_<status>`, `TIMEOUT`, `NETWORK` or `SNS_<ErrorName>`.
 */
import { PublishCommand, type SNSClient } from '@aws-sdk/client-sns';
import type { ResolvedDestination } from './destinations.ts';
import type { RunFinishedEnvelope } from './run-finished-event.ts';
import { buildSlackMessage } from './slack-message.ts';
import { buildSnsMessage } from './sns-message.ts';
import { buildWebhookRequest } from './webhook-request.ts';

export type SendResult = { ok: true } | { ok: false; code: string };

/** Sends one result to one destination. */
export type DestinationSender = (
  destination: ResolvedDestination,
  envelope: RunFinishedEnvelope,
) => Promise<SendResult>;

export interface DestinationSenderOptions {
  sns: Pick<SNSClient, 'send'>;
  /** Each HTTP attempt's limit, connection to last byte (a hanging receiver counts as TIMEOUT). */
  timeoutMs: number;
  now: () => number;
  fetch?: typeof fetch;
}

/** At most this much of a response body is read (and discarded): a receiver cannot make us buffer its answer. */
const MAX_RESPONSE_BYTES = 64 * 1024;

export function createDestinationSender(options: DestinationSenderOptions): DestinationSender {
  const fetchImpl = options.fetch ?? fetch;

  async function post(url: string, body: string, headers: Record<string, string>): Promise<SendResult> {
    const signal = AbortSignal.timeout(options.timeoutMs);
    try {
      // NOTE: no redirects: a destination's URL is fixed by the stage file, never by the receiver's answer.
      const response = await fetchImpl(url, { method: 'POST', body, headers, signal, redirect: 'manual' });
      // The answer is its status: a body that never ends does not undo a 2xx.
      await drain(response).catch(() => undefined);
      return response.status >= 200 && response.status < 300
        ? { ok: true }
        : { ok: false, code: `HTTP_${response.status}` };
    } catch {
      return { ok: false, code: signal.aborted ? 'TIMEOUT' : 'NETWORK' };
    }
  }

  return async (destination, envelope) => {
    if (destination.type === 'slack') {
      const message = buildSlackMessage(envelope.detail);
      return post(destination.url, JSON.stringify(message), { 'content-type': 'application/json' });
    }
    if (destination.type === 'webhook') {
      const request = buildWebhookRequest(envelope, destination.id, destination.signingKey, options.now());
      return post(destination.url, request.body, request.headers);
    }
    const message = buildSnsMessage(envelope.detail);
    try {
      await options.sns.send(
        new PublishCommand({
          TopicArn: destination.topicArn,
          Subject: message.subject,
          Message: JSON.stringify(message.message),
          MessageStructure: 'json',
        }),
      );
      return { ok: true };
    } catch (error) {
      const name = (error as { name?: unknown }).name;
      return { ok: false, code: `SNS_${typeof name === 'string' && /^[A-Za-z]{1,64}$/.test(name) ? name : 'Error'}` };
    }
  };
}

async function drain(response: Response): Promise<void> {
  const reader = response.body?.getReader();
  if (reader === undefined) return;
  let read = 0;
  try {
    while (read < MAX_RESPONSE_BYTES) {
      const chunk = await reader.read();
      if (chunk.done) return;
      read += chunk.value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
