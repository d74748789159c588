/// <reference path="../../.sst/platform/config.d.ts" />
/**
 * The Slack apps (docs/chat.md), only when the stage file has some: `POST /slack/{appId}/{kind}` on the IngressApi
 * (not behind IAM: Slack's signature is the authentication) → SlackRequests acknowledges within 3 s and queues the
 * work on SlackWorkQueue → SlackWork starts runs and follow-ups, records ratings and keeps each run's card up to date
 * from the table's stream. Each app's bot token and signing secret are SST secrets named in the stage file.
 */
import { SLACK_CARD_STREAM_BATCHING, SLACK_CARD_STREAM_FILTERS, slackSecretNames } from '../slack.ts';
import type { Apis, RunRoutes } from './api.ts';
import type { Secrets } from './diagnose.ts';
import { pickSettings, type Stage } from './stage.ts';
import type { Storage } from './table.ts';
import type { Workflows } from './workflow.ts';

/** The Slack functions the stage deploys (none or both), by name. */
export function createSlack(
  stage: Stage,
  storage: Storage,
  secrets: Secrets,
  { api, ingressRoute }: Apis,
  { workflow }: Workflows,
  { rating }: RunRoutes,
) {
  const { functionCode } = stage.build;
  const slackFunctions: Record<string, sst.aws.Function> = {};
  if (stage.config.slack.apps.length === 0) return slackFunctions;
  const { settings } = stage;
  const { table, tableGrant, keyUse } = storage;
  const slackSecrets = slackSecretNames(stage.config.slack).map((name) => new sst.Secret(name));
  const slackDeadLetters = new sst.aws.Queue('SlackWorkDeadLetters', {
    transform: { queue: { messageRetentionSeconds: 14 * 24 * 3600 } },
  });
  const slackQueue = new sst.aws.Queue('SlackWorkQueue', {
    dlq: { queue: slackDeadLetters.arn, retry: 5 },
    visibilityTimeout: '60 seconds',
  });
  const slackEnvironment = {
    DIAGNOSIS_TABLE_NAME: table.name,
    SLACK_APPS: JSON.stringify(stage.config.slack.apps),
    SLACK_QUEUE_URL: slackQueue.url,
  };
  const slackRequests = new sst.aws.Function('SlackRequests', {
    ...functionCode('SlackRequests', $cli.paths.root),
    runtime: 'nodejs24.x',
    architecture: 'arm64',
    timeout: '10 seconds',
    memory: '256 MB',
    concurrency: { reserved: stage.config.reservedConcurrency.api },
    link: slackSecrets,
    environment: slackEnvironment,
    permissions: [
      // It claims each signed request once (SLACKREQ#…) and queues the work; it reads nothing else.
      tableGrant(['PutItem'], ['SLACK_REQUEST']),
      { actions: ['sqs:SendMessage'], resources: [slackQueue.arn] },
      ...keyUse(['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey*']),
    ],
  });
  ingressRoute('POST /slack/{appId}/{kind}', slackRequests.arn);
  const slackWork = new sst.aws.Function('SlackWork', {
    ...functionCode('SlackWork', $cli.paths.root),
    runtime: 'nodejs24.x',
    architecture: 'arm64',
    timeout: '60 seconds',
    memory: '256 MB',
    link: [...slackSecrets, secrets.maskingKey],
    environment: {
      ...slackEnvironment,
      DIAGNOSIS_WORKFLOW_ARN: workflow.arn,
      DIAGNOSIS_API_URL: api.url,
      TENANT_MAX_OPEN_RUNS: String(settings.TENANT_MAX_OPEN_RUNS),
      RETENTION_DAYS: String(settings.RETENTION_DAYS),
      MASKING: settings.MASKING,
      ...pickSettings(stage, ['DIAGNOSIS_MAX_QUERY_BYTES']),
      // The rating's settings, as RunFeedback gets them (the masking's patterns, the retentions).
      ...rating.environment,
    },
    permissions: [
      // Runs (admission included) as the triggers start them; its own cards, their messages and the channels' post
      // slots (a card's first post reserves its channel's); ratings as RunFeedback records them.
      tableGrant(
        ['GetItem', 'PutItem', 'UpdateItem', 'Query'],
        ['RUN', 'TENANT_OPEN', 'FEEDBACK', 'PSEUDONYMS', 'SLACK_CARD', 'SLACK_MESSAGE', 'SLACK_CHANNEL'],
      ),
      ...rating.grants,
      { actions: ['states:StartExecution'], resources: [workflow.arn] },
      {
        actions: ['sqs:SendMessage', 'sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'],
        resources: [slackQueue.arn],
      },
      ...keyUse(['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey*']),
    ],
  });
  slackQueue.subscribe(slackWork.arn, { batch: { size: 10, partialResponses: true } });
  // NOTE: no batching window (SLACK_CARD_STREAM_BATCHING says why): the first and final cards wait on none.
  table.subscribe('SlackCards', slackWork.arn, {
    filters: [...SLACK_CARD_STREAM_FILTERS],
    transform: {
      eventSourceMapping: (args) => {
        args.batchSize = SLACK_CARD_STREAM_BATCHING.batchSize;
        args.maximumBatchingWindowInSeconds = SLACK_CARD_STREAM_BATCHING.maximumBatchingWindowInSeconds;
        args.functionResponseTypes = ['ReportBatchItemFailures'];
        args.bisectBatchOnFunctionError = true;
        args.maximumRetryAttempts = 3;
      },
    },
  });
  slackFunctions.SlackRequests = slackRequests;
  slackFunctions.SlackWork = slackWork;
  return slackFunctions;
}
