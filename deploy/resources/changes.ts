/// <reference path="../../.sst/platform/config.d.ts" />
/**
 * What changed (docs/changes.md), only when the stage file maps change sources: `POST /changes/{source}` on the
 * IngressApi → ChangeWebhook (change webhooks, GitHub `deployment_status`; each source's own secret), and an
 * EventBridge rule on CloudTrail write calls of the mapped accounts → ChangeEvents. Both may only put items of the
 * enterprises' change partitions (CHANGES#*); Diagnose reads them through `query_logs` (service `changes`).
 */
import { changeSecretNames, cloudTrailRulePattern, hasChangeWebhooks } from '../changes.ts';
import type { Apis } from './api.ts';
import type { Stage } from './stage.ts';
import type { Storage } from './table.ts';

/** The change functions the stage deploys (none, one or both), by name. */
export function createChanges(stage: Stage, storage: Storage, { ingressRoute }: Apis) {
  const { functionCode } = stage.build;
  const changeFunctions: Record<string, sst.aws.Function> = {};
  const changeSources = stage.config.changes.sources;
  if (changeSources.length === 0) return changeFunctions;
  const changeFunction = (name: 'ChangeWebhook' | 'ChangeEvents', link: sst.Secret[]) =>
    new sst.aws.Function(name, {
      ...functionCode(name, $cli.paths.root),
      runtime: 'nodejs24.x',
      architecture: 'arm64',
      timeout: '10 seconds',
      memory: '256 MB',
      concurrency: { reserved: stage.config.reservedConcurrency.api },
      link,
      environment: {
        DIAGNOSIS_TABLE_NAME: storage.table.name,
        CHANGE_SOURCES: JSON.stringify(changeSources),
        CHANGE_RETENTION_DAYS: String(stage.settings.CHANGE_RETENTION_DAYS),
      },
      permissions: [
        storage.tableGrant(['PutItem'], ['CHANGES']),
        ...storage.keyUse(['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey*']),
      ],
    });
  if (hasChangeWebhooks(changeSources)) {
    // "none": that source's requests are refused until the secret is set (`sst secret set …`).
    const changeSecrets = changeSecretNames(changeSources).map((name) => new sst.Secret(name, 'none'));
    const changeWebhook = changeFunction('ChangeWebhook', changeSecrets);
    changeFunctions.ChangeWebhook = changeWebhook;
    // NOTE: on the IngressApi, no `auth`: the senders cannot sign AWS requests; the function checks each one's own
    // secret.
    ingressRoute('POST /changes/{source}', changeWebhook.arn);
  }
  const pattern = cloudTrailRulePattern(changeSources);
  if (pattern !== null) {
    const changeEvents = changeFunction('ChangeEvents', []);
    changeFunctions.ChangeEvents = changeEvents;
    const cloudTrailRule = new aws.cloudwatch.EventRule('CloudTrailWriteCalls', {
      eventPattern: JSON.stringify(pattern),
    });
    new aws.cloudwatch.EventTarget('CloudTrailWriteCallsTarget', {
      rule: cloudTrailRule.name,
      arn: changeEvents.arn,
    });
    new aws.lambda.Permission('CloudTrailWriteCallsInvoke', {
      action: 'lambda:InvokeFunction',
      function: changeEvents.name,
      principal: 'events.amazonaws.com',
      sourceArn: cloudTrailRule.arn,
    });
  }
  return changeFunctions;
}
