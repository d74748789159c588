import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { DiagnosisWorkflow } from '@diagnosis/core';
import { parseFeedbackSettings, parseTriggerSettings } from '@diagnosis/core/config';
import {
  createDynamoClient,
  createDynamoFeedbackStore,
  createDynamoRunStore,
  type RunStore,
} from '@diagnosis/core/store';
import { createDeployedWorkflow } from '../diagnose/deployed-workflow.ts';
import { coldStart } from '../lambda/cold-start.ts';
import { readLinkedEnvironment } from '../lambda/linked-environment.ts';
import type { Rating } from '../ratings/rating.ts';
import { loadRating } from '../ratings/rating-setup.ts';
import { createDynamoCardStore } from './dynamo-card-store.ts';
import { createSlackApi, type SlackApi } from './slack-api.ts';
import type { ConversationDeps } from './slack-conversation.ts';
import { parseSlackFunctionSettings } from './slack-function-settings.ts';
import { enqueueSlackWork, slackSecretOf } from './slack-queue.ts';
import { type ResolvedSlackApp, resolveSlackApps, type SlackAppDirectory } from './slack-settings.ts';
import type { SlackWork } from './slack-work.ts';

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

/**
 * The SlackWork function's cold start: the run store and workflow (to start runs), the rating use case as the
 * feedback function composes it (`loadRating`: masking, ratings, past incidents), cards and Slack.
 */
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
      deps: buildConversationDeps({
        apps: resolveSlackApps(slack.SLACK_APPS, secretOf),
        apiUrl: slack.SLACK_API_URL,
        timeoutMs: slack.SLACK_TIMEOUT_MS,
        client,
        tableName,
        runs,
        workflow: createDeployedWorkflow(trigger),
        maxQueryBytes: trigger.DIAGNOSIS_MAX_QUERY_BYTES,
        // NOTE: composed as the feedback function composes it, from the same settings (functions/ratings/).
        rate: await loadRating(feedbackSettings, client),
        runLinksTo: slack.DIAGNOSIS_API_URL ?? null,
        retentionDays: trigger.RETENTION_DAYS,
      }),
      requeue: enqueueSlackWork(new SQSClient({ maxAttempts: 2 }), slack.SLACK_QUEUE_URL),
    };
  });
}

/**
 * The SlackWork function's dependencies from its parts: the resolved apps and their Web API clients, the cards, the
 * run store and the workflow runs start in (the deployed one; `diagnosis serve`: its local stand-in), the rating use
 * case (`composeRating`), and the API URL the result card links to (null: no link).
 */
export function buildConversationDeps(parts: {
  apps: SlackAppDirectory;
  apiUrl: string | undefined;
  timeoutMs: number;
  client: DynamoDBClient;
  tableName: string;
  runs: RunStore;
  workflow: DiagnosisWorkflow;
  maxQueryBytes: number | undefined;
  rate: Rating;
  runLinksTo: string | null;
  /** Days a card and its message item are kept (RETENTION_DAYS: the run's own). */
  retentionDays?: number;
}): ConversationDeps {
  const { client, tableName } = parts;
  return {
    apps: parts.apps,
    slackOf: slackClients(parts.apiUrl, parts.timeoutMs),
    cards: createDynamoCardStore({
      client,
      tableName,
      ...(parts.retentionDays === undefined ? {} : { retentionDays: parts.retentionDays }),
    }),
    runs: parts.runs,
    feedback: createDynamoFeedbackStore({ client, tableName }),
    start: {
      store: parts.runs,
      workflow: parts.workflow,
      ...(parts.maxQueryBytes === undefined ? {} : { limits: { maxQueryBytes: parts.maxQueryBytes } }),
    },
    rate: parts.rate,
    now: Date.now,
    event: { apiUrl: parts.runLinksTo, price: null },
    slackTimeoutMs: parts.timeoutMs,
  };
}
