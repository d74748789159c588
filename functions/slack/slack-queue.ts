import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { SettingsError } from '@diagnosis/core/config';
import { Resource } from 'sst/resource';
import type { SlackWork } from './slack-work.ts';

/** A linked SST secret's value (a Slack app's bot token or signing secret), or undefined when it is not linked. */
export function slackSecretOf(name: string): string | undefined {
  try {
    const value = (Resource as unknown as Record<string, { value?: unknown } | undefined>)[name]?.value;
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Puts work on the SlackWork queue, after `delaySeconds` (at most SQS's 900). */
export function enqueueSlackWork(sqs: Pick<SQSClient, 'send'>, queueUrl: string | undefined) {
  return async (work: SlackWork, delaySeconds = 0): Promise<void> => {
    if (queueUrl === undefined) throw new SettingsError(['SLACK_QUEUE_URL']);
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: queueUrl,
        MessageBody: JSON.stringify(work),
        ...(delaySeconds > 0 ? { DelaySeconds: Math.min(900, Math.ceil(delaySeconds)) } : {}),
      }),
    );
  };
}
