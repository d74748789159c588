import { SQSClient } from '@aws-sdk/client-sqs';
import { SettingsError } from '@diagnosis/core/config';
import { createDynamoClient } from '@diagnosis/core/store';
import type { SlackRequestDeps } from '../handlers/slack-request-handler.ts';
import { createDynamoCardStore } from '../slack/card-store.ts';
import { parseSlackFunctionSettings } from '../slack/slack-function-settings.ts';
import { resolveSlackApps } from '../slack/slack-settings.ts';
import { coldStart } from './cold-start.ts';
import { readLinkedEnvironment } from './linked-environment.ts';
import { enqueueSlackWork, slackSecretOf } from './slack-queue.ts';

/**
 * The acknowledging function's cold start: the apps (secrets resolved), the request claims, the queue. NOTE: the
 * Slack client is loaded only when a note click needs the modal opened (`rating-modal.ts`, imported on first use), so
 * this function's cold start stays that of a small API function.
 */
export function loadSlackRequests(
  environment: Record<string, string | undefined> = readLinkedEnvironment(),
  secretOf: (name: string) => string | undefined = slackSecretOf,
): Promise<SlackRequestDeps> {
  return coldStart(() => {
    const settings = parseSlackFunctionSettings(environment);
    const tableName = environment.DIAGNOSIS_TABLE_NAME;
    if (tableName === undefined || tableName === '') throw new SettingsError(['DIAGNOSIS_TABLE_NAME']);
    const endpoint = environment.DYNAMODB_ENDPOINT;
    const client = createDynamoClient(
      {
        DIAGNOSIS_TABLE_NAME: tableName,
        ...(endpoint === undefined || endpoint === '' ? {} : { DYNAMODB_ENDPOINT: endpoint }),
      },
      process.env,
    );
    const cards = createDynamoCardStore({ client, tableName });
    const enqueue = enqueueSlackWork(new SQSClient({ maxAttempts: 2 }), settings.SLACK_QUEUE_URL);
    // NOTE: the answer to Slack must leave within 3 s: the modal call gets at most 2 s.
    const timeoutMs = Math.min(settings.SLACK_TIMEOUT_MS, 2_000);
    let opener: Promise<typeof import('../slack/rating-modal.ts')['createRatingModalOpener']> | undefined;
    let open: ReturnType<typeof import('../slack/rating-modal.ts')['createRatingModalOpener']> | undefined;
    return {
      apps: resolveSlackApps(settings.SLACK_APPS, secretOf),
      claimRequest: (key, expiresAt) => cards.claimOnce(key, Date.now(), expiresAt),
      enqueue: (work) => enqueue(work),
      async openRatingModal(app, request) {
        opener ??= import('../slack/rating-modal.ts').then((module) => module.createRatingModalOpener);
        open ??= (await opener)(settings.SLACK_API_URL, timeoutMs);
        await open(app, request);
      },
      now: Date.now,
    };
  });
}
