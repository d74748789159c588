import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DEVELOPMENT_MASKING_SECRET, loadCustomRules } from '@diagnosis/core';
import { parseFeedbackSettings, parseTriggerSettings, SettingsError } from '@diagnosis/core/config';
import { createDynamoClient, createDynamoFeedbackStore, createDynamoRunStore } from '@diagnosis/core/store';
import { Resource } from 'sst/resource';
import type { SlackRequestDeps } from '../handlers/slack-request-handler.ts';
import { createDynamoCardStore } from '../slack/card-store.ts';
import { createSlackApi, type SlackApi } from '../slack/slack-api.ts';
import { type ConversationDeps, openRatingModal } from '../slack/slack-conversation.ts';
import { parseSlackFunctionSettings } from '../slack/slack-function-settings.ts';
import { type ResolvedSlackApp, resolveSlackApps, type SlackAppDirectory } from '../slack/slack-settings.ts';
import type { SlackWork } from '../slack/slack-work.ts';
import { coldStart } from './cold-start.ts';
import { createDeployedWorkflow } from './deployed-workflow.ts';
import { readLinkedEnvironment } from './linked-environment.ts';

/** A linked SST secret's value, or undefined when it is not linked. */
export function slackSecretOf(name: string): string | undefined {
  try {
    const value = (Resource as unknown as Record<string, { value?: unknown } | undefined>)[name]?.value;
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** One Slack client per app, built on first use and kept for the container's life. */
function slackClients(apiUrl: string | undefined, timeoutMs: number) {
  const clients = new Map<string, SlackApi>();
  return (app: ResolvedSlackApp): SlackApi => {
    let client = clients.get(app.id);
    if (client === undefined) {
      client = createSlackApi({ token: app.botToken, timeoutMs, ...(apiUrl === undefined ? {} : { apiUrl }) });
      clients.set(app.id, client);
    }
    return client;
  };
}

function enqueueTo(sqs: SQSClient, queueUrl: string | undefined) {
  return async (work: SlackWork, delaySeconds = 0) => {
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

/** The acknowledging function's cold start: the apps (secrets resolved), the claims, the queue, Slack for modals. */
export function loadSlackRequests(
  environment = readLinkedEnvironment(),
  secretOf: (name: string) => string | undefined = slackSecretOf,
  dynamo?: DynamoDBClient,
): Promise<SlackRequestDeps> {
  return coldStart(() => {
    const settings = parseSlackFunctionSettings(environment);
    const tableName = environment.DIAGNOSIS_TABLE_NAME;
    if (tableName === undefined || tableName === '') throw new SettingsError(['DIAGNOSIS_TABLE_NAME']);
    const endpoint = environment.DYNAMODB_ENDPOINT;
    const client =
      dynamo ??
      createDynamoClient(
        {
          DIAGNOSIS_TABLE_NAME: tableName,
          ...(endpoint === undefined || endpoint === '' ? {} : { DYNAMODB_ENDPOINT: endpoint }),
        },
        process.env,
      );
    const cards = createDynamoCardStore({ client, tableName });
    const apps: SlackAppDirectory = resolveSlackApps(settings.SLACK_APPS, secretOf);
    const slackOf = slackClients(settings.SLACK_API_URL, Math.min(settings.SLACK_TIMEOUT_MS, 2_000));
    const enqueue = enqueueTo(new SQSClient({ maxAttempts: 2 }), settings.SLACK_QUEUE_URL);
    return {
      apps,
      claimRequest: (key, expiresAt) => cards.claimOnce(key, Date.now(), expiresAt),
      enqueue: (work) => enqueue(work),
      openRatingModal: (app, request) => openRatingModal(app, request, slackOf(app)),
      now: Date.now,
    };
  });
}

/** The SlackWork function's cold start: the run store and workflow (to start runs), feedback, cards and Slack. */
export function loadSlackWork(
  environment = readLinkedEnvironment(),
  secretOf: (name: string) => string | undefined = slackSecretOf,
): Promise<{ deps: ConversationDeps; requeue: (work: SlackWork, delaySeconds: number) => Promise<void> }> {
  return coldStart(async () => {
    const slack = parseSlackFunctionSettings(environment);
    const trigger = parseTriggerSettings(environment);
    const feedbackSettings = parseFeedbackSettings(environment);
    const client = createDynamoClient(trigger, process.env);
    const tableName = trigger.DIAGNOSIS_TABLE_NAME;
    const runs = createDynamoRunStore({
      client,
      tableName,
      retentionDays: trigger.RETENTION_DAYS,
      maxOpenRuns: trigger.TENANT_MAX_OPEN_RUNS,
    });
    return {
      deps: {
        apps: resolveSlackApps(slack.SLACK_APPS, secretOf),
        slackOf: slackClients(slack.SLACK_API_URL, slack.SLACK_TIMEOUT_MS),
        cards: createDynamoCardStore({ client, tableName }),
        runs,
        start: {
          store: runs,
          workflow: createDeployedWorkflow(trigger),
          ...(trigger.DIAGNOSIS_MAX_QUERY_BYTES === undefined
            ? {}
            : { limits: { maxQueryBytes: trigger.DIAGNOSIS_MAX_QUERY_BYTES } }),
        },
        feedback: createDynamoFeedbackStore({ client, tableName }),
        masking: {
          // NOTE: as the feedback route: the development key only against DynamoDB Local, else the MaskingKey or none.
          secret:
            feedbackSettings.MASKING_SECRET ??
            (feedbackSettings.DYNAMODB_ENDPOINT === undefined ? null : DEVELOPMENT_MASKING_SECRET),
          mode: feedbackSettings.MASKING,
          rules: await loadCustomRules(feedbackSettings.MASKING_PATTERNS, feedbackSettings.MASKING_EXCLUSIONS),
        },
        now: Date.now,
        event: { apiUrl: slack.DIAGNOSIS_API_URL ?? null, price: null },
      },
      requeue: enqueueTo(new SQSClient({ maxAttempts: 2 }), slack.SLACK_QUEUE_URL),
    };
  });
}
