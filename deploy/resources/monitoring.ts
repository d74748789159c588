/// <reference path="../../.sst/platform/config.d.ts" />
/**
 * Alarms and a dashboard on what the functions emit and what AWS measures of them, built as data by deploy/alarms.ts
 * and deploy/dashboard.ts (thresholds: the stage file's `alarms`); every alarm notifies the Alarms topic, firing and
 * recovering.
 */
import { buildAlarmDefinitions } from '../alarms.ts';
import { buildDashboardBody } from '../dashboard.ts';
import type { Apis } from './api.ts';
import type { Delivery } from './delivery.ts';
import type { Stage } from './stage.ts';
import type { Storage } from './table.ts';
import type { Triggers } from './triggers.ts';
import type { Workflows } from './workflow.ts';

export interface Monitored {
  apis: Apis;
  workflows: Workflows;
  delivery: Delivery;
  triggers: Triggers;
  /** Every deployed function, by its name in scripts/lambda-functions.ts. */
  functions: Record<string, { name: $util.Output<string> }>;
}

export function createMonitoring(stage: Stage, storage: Storage, deployed: Monitored) {
  const { apis, workflows, delivery, triggers } = deployed;
  const alarmTopic = new sst.aws.SnsTopic('Alarms');
  if (stage.config.alarms.email !== undefined) {
    new aws.sns.TopicSubscription('AlarmsEmail', {
      topic: alarmTopic.arn,
      protocol: 'email',
      endpoint: stage.config.alarms.email,
    });
  }
  const monitored = {
    region: stage.region,
    functions: Object.entries(deployed.functions).map(([id, fn]) => ({ id, name: fn.name })),
    runFunctionId: 'Diagnose',
    tableName: storage.table.name,
    globalIndexNames: storage.globalIndexNames,
    stateMachines: [
      { id: 'DiagnosisWorkflow', arn: workflows.workflow.arn },
      { id: 'DiagnosisBatch', arn: workflows.batch.arn },
    ],
    apiId: apis.api.nodes.api.id,
    ingressApiId: apis.ingress.nodes.api.id,
    topicArn: alarmTopic.arn,
    triggers: stage.config.triggers.length > 0,
    ...(triggers.deadLetterQueueName === undefined
      ? {}
      : { triggerDeadLetters: { queueName: triggers.deadLetterQueueName } }),
    delivery: {
      queueName: delivery.deliveryQueue.nodes.queue.name,
      deadLetterQueueName: delivery.deadLetters.nodes.queue.name,
    },
  };
  for (const alarm of buildAlarmDefinitions(monitored, stage.config.alarms)) {
    new aws.cloudwatch.MetricAlarm(alarm.id, { name: `${$app.name}-${$app.stage}-${alarm.id}`, ...alarm.args });
  }
  const dashboardName = `${$app.name}-${$app.stage}`;
  new aws.cloudwatch.Dashboard('Dashboard', {
    dashboardName,
    dashboardBody: $jsonStringify(buildDashboardBody(monitored, stage.config.alarms)),
  });
  return { alarmTopic, dashboardName };
}
