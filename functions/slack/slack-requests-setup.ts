import { SQSClient } from '@aws-sdk/client-sqs';
import { SettingsError } from '@diagnosis/core/config';
import { createDynamoClient } from '@diagnosis/core/store';
import { coldStart } from '../lambda/cold-start.ts';
import { readLinkedEnvironment } from '../lambda/linked-environment.ts';
import type { CardStore } from './card-store.ts';
import { createDynamoCardStore } from './dynamo-card-store.ts';
import { parseSlackFunctionSettings } from './slack-function-settings.ts';
import { enqueueSlackWork, slackSecretOf } from './slack-queue.ts';
import type { SlackRequestDeps } from './slack-request-handler.ts';
import { resolveSlackApps, type SlackAppDirectory } from './slack-settings.ts';
import type { SlackWork } from './slack-work.ts';

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
    return buildSlackRequestDeps({
      apps: resolveSlackApps(settings.SLACK_APPS, secretOf),
      cards: createDynamoCardStore({ client, tableName }),
      enqueue: enqueueSlackWork(new SQSClient({ maxAttempts: 2 }), settings.SLACK_QUEUE_URL),
      apiUrl: settings.SLACK_API_URL,
      timeoutMs: settings.SLACK_TIMEOUT_MS,
    });
  });
}

/**
 * The acknowledging function's dependencies from its parts: the resolved apps, the card store (its request claims),
 * where work goes (the SlackWork queue; `diagnosis serve`: its in-process stand-in), and Slack's Web API for the
 * rating modal. NOTE: the answer to Slack must leave within 3 s: the modal call gets at most 2 s.
 */
export function buildSlackRequestDeps(parts: {
  apps: SlackAppDirectory;
  cards: Pick<CardStore, 'claimOnce'>;
  enqueue: (work: SlackWork) => Promise<void>;
  apiUrl: string | undefined;
  timeoutMs: number;
}): SlackRequestDeps {
  const timeoutMs = Math.min(parts.timeoutMs, 2_000);
  let opener: Promise<typeof import('./rating-modal.ts')['createRatingModalOpener']> | undefined;
  let open: ReturnType<typeof import('./rating-modal.ts')['createRatingModalOpener']> | undefined;
  return {
    apps: parts.apps,
    claimRequest: (key, expiresAt) => parts.cards.claimOnce(key, Date.now(), expiresAt),
    enqueue: (work) => parts.enqueue(work),
    async openRatingModal(app, request) {
      opener ??= import('./rating-modal.ts').then((module) => module.createRatingModalOpener);
      open ??= (await opener)(parts.apiUrl, timeoutMs);
      await open(app, request);
    },
    now: Date.now,
  };
}
