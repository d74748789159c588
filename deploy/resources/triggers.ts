/// <reference path="../../.sst/platform/config.d.ts" />
/**
 * Triggers (docs/triggers.md), only when the stage file maps some: an EventBridge rule on CloudWatch alarms that
 * enter ALARM invokes the Trigger function; webhook mappings add `POST /triggers/{source}` on the IngressApi (each
 * sender's bearer token or signature is its authentication; the secrets are SST secrets). Both may touch only run,
 * open-runs (admission), incident and webhook-event items, and start only this workflow.
 */
import type { Apis } from './api.ts';
import type { Secrets } from './diagnose.ts';
import { pickSettings, type Stage } from './stage.ts';
import type { Storage } from './table.ts';
import type { Workflows } from './workflow.ts';

export interface Triggers {
  functions: Record<string, sst.aws.Function>;
  /** Where an alarm event whose run could not be started ends up, when the stage has triggers. */
  deadLetterQueueName?: $util.Output<string>;
}

export function createTriggers(
  stage: Stage,
  storage: Storage,
  secrets: Secrets,
  { ingressRoute }: Apis,
  { workflow }: Workflows,
): Triggers {
  const { functionCode } = stage.build;
  if (stage.config.triggers.length === 0) return { functions: {} };
  const { settings } = stage;
  const { tableGrant, keyUse } = storage;
  const triggerEnvironment: Record<string, $util.Input<string>> = {
    DIAGNOSIS_TABLE_NAME: storage.table.name,
    DIAGNOSIS_WORKFLOW_ARN: workflow.arn,
    TRIGGERS: JSON.stringify(stage.config.triggers),
    DIAGNOSIS_TIMEZONE: settings.DIAGNOSIS_TIMEZONE,
    TRIGGER_QUIET_PERIOD_SECONDS: String(settings.TRIGGER_QUIET_PERIOD_SECONDS),
    TRIGGER_LOOKBACK_MINUTES: String(settings.TRIGGER_LOOKBACK_MINUTES),
    TENANT_MAX_OPEN_RUNS: String(settings.TENANT_MAX_OPEN_RUNS),
    RETENTION_DAYS: String(settings.RETENTION_DAYS),
    ...pickSettings(stage, ['DIAGNOSIS_MAX_QUERY_BYTES']),
    // The sender's texts (question, title) are masked with the runs' own masking.
    ...pickSettings(stage, [
      'MASKING',
      'MASKING_PATTERNS',
      'MASKING_EXCLUSIONS',
      'REASONING_RETENTION_DAYS',
      'PSEUDONYM_RETENTION_DAYS',
    ]),
  };
  const triggerPermissions: sst.aws.FunctionPermissionArgs[] = [
    tableGrant(
      ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'Query'],
      ['RUN', 'TENANT_OPEN', 'INCIDENT', 'WEBHOOK'],
    ),
    // NOTE: a new run's pseudonym map (its question's values), put only: a trigger never reads a map.
    tableGrant(['PutItem'], ['PSEUDONYMS']),
    // NOTE: the enterprises' changes, queried only: a new run's question says how many landed in its lookback.
    tableGrant(['Query'], ['CHANGES']),
    { actions: ['states:StartExecution'], resources: [workflow.arn] },
    ...keyUse(['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey*']),
  ];
  const triggerFunction = (name: 'Trigger' | 'TriggerWebhook', link: sst.aws.FunctionArgs['link']) =>
    new sst.aws.Function(name, {
      ...functionCode(name, $cli.paths.root),
      runtime: 'nodejs24.x',
      architecture: 'arm64',
      timeout: '30 seconds',
      // The memory the warm CPU per invocation calls for (BENCHMARKS.md, "Warm CPU per function"): the webhook's
      // parse and signature check take about 40 % more CPU than an alarm's; at 512 MB it answers about 20 ms sooner.
      memory: name === 'TriggerWebhook' ? '512 MB' : '256 MB',
      // NOTE: the webhook route is public (signed, not IAM): a flood of requests gets its own reserved share.
      concurrency: { reserved: stage.config.reservedConcurrency.api },
      link,
      environment: triggerEnvironment,
      permissions: triggerPermissions,
    });
  const functions: Record<string, sst.aws.Function> = {};
  // NOTE: EventBridge invokes Trigger asynchronously; an event whose run could not be started is thrown, so Lambda
  // tries it twice more, then sends it to TriggerDeadLetters (kept 14 days, alarmed on its depth) instead of
  // dropping it: an alarm that should have started a diagnosis is never lost silently.
  const triggerDeadLetters = new sst.aws.Queue('TriggerDeadLetters', {
    transform: { queue: { messageRetentionSeconds: 14 * 24 * 3600 } },
  });
  triggerPermissions.push({ actions: ['sqs:SendMessage'], resources: [triggerDeadLetters.arn] });
  const trigger = triggerFunction('Trigger', [secrets.maskingKey]);
  functions.Trigger = trigger;
  new aws.lambda.FunctionEventInvokeConfig('TriggerInvokeConfig', {
    functionName: trigger.name,
    maximumRetryAttempts: 2,
    maximumEventAgeInSeconds: 3600,
    destinationConfig: { onFailure: { destination: triggerDeadLetters.arn } },
  });
  const alarmRule = new aws.cloudwatch.EventRule('AlarmStateChange', {
    eventPattern: JSON.stringify({
      source: ['aws.cloudwatch'],
      'detail-type': ['CloudWatch Alarm State Change'],
      detail: { state: { value: ['ALARM'] } },
    }),
  });
  new aws.cloudwatch.EventTarget('AlarmStateChangeTarget', { rule: alarmRule.name, arn: trigger.arn });
  new aws.lambda.Permission('AlarmStateChangeInvoke', {
    action: 'lambda:InvokeFunction',
    function: trigger.name,
    principal: 'events.amazonaws.com',
    sourceArn: alarmRule.arn,
  });
  if (stage.config.triggers.some((mapping) => mapping.source !== 'cloudwatch')) {
    // "none": that source's route refuses every request until the secret is set (`sst secret set …`).
    const alertmanagerToken = new sst.Secret('AlertmanagerWebhookToken', 'none');
    const pagerdutySecrets = new sst.Secret('PagerDutyWebhookSecrets', 'none');
    // NOTE: a mapping's own credential (its `secret`): only that mapping is reached with it (docs/triggers.md).
    const mappingSecrets = stage.config.webhookSecrets.map((name) => new sst.Secret(name, 'none'));
    const webhook = triggerFunction('TriggerWebhook', [
      alertmanagerToken,
      pagerdutySecrets,
      ...mappingSecrets,
      secrets.maskingKey,
    ]);
    functions.TriggerWebhook = webhook;
    // NOTE: on the IngressApi, no `auth`: the senders cannot sign AWS requests; the function checks each one's own
    // credential.
    ingressRoute('POST /triggers/{source}', webhook.arn);
  }
  return { functions, deadLetterQueueName: triggerDeadLetters.nodes.queue.name };
}
