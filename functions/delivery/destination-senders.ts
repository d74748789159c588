/**
 * The network side of each destination: one attempt, bounded in time, answered with a stable code. NOTE: no
 * response body, exception text or URL is ever returned or logged (a Slack webhook URL is a credential); an
 * attempt fails as `HTTP_<status>`, `TIMEOUT`, `NETWORK` or `SNS_<ErrorName>`.
 */
import { PublishCommand, type SNSClient } from '@aws-sdk/client-sns';
import type { ResolvedDestination } from './destinations.ts';
import { buildPagerDutyNote, PAGERDUTY_API_URL } from './pagerduty-note.ts';
import type { RunFinishedEnvelope } from './run-finished-event.ts';
import { buildSlackMessage } from './slack-message.ts';
import { buildSnsMessage } from './sns-message.ts';
import { buildTeamsMessage } from './teams-card.ts';
import { buildWebhookRequest } from './webhook-request.ts';

type SendResult = { ok: true } | { ok: false; code: string };

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
  /** PagerDuty's REST API (tests point it at a loopback server); default `https://api.pagerduty.com`. */
  pagerDutyApiUrl?: string;
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
    if (destination.type === 'teams') {
      return post(destination.url, JSON.stringify(buildTeamsMessage(envelope.detail)), {
        'content-type': 'application/json',
      });
    }
    if (destination.type === 'pagerduty') {
      const note = buildPagerDutyNote(envelope.detail);
      // NOTE: `deliverRunResult` sends only results of PagerDuty-started runs here; anything else is a caller's error.
      if (note === null) return { ok: false, code: 'NOT_A_PAGERDUTY_RUN' };
      return post(`${options.pagerDutyApiUrl ?? PAGERDUTY_API_URL}${note.path}`, note.body, {
        'content-type': 'application/json',
        accept: 'application/vnd.pagerduty+json;version=2',
        authorization: `Token token=${destination.apiKey}`,
        from: destination.from,
      });
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
