/// <reference path="../../.sst/platform/config.d.ts" />
/**
 * Delivery of every result (docs/delivery.md): the table's stream → OnRunFinished puts one `Diagnosis Run Finished`
 * on the DiagnosisResults bus per run that ended, whatever ended it → a rule → DeliveryQueue → DeliverResults sends it
 * to the run's enterprise's destinations (Slack, SNS, signed webhooks), retried with backoff, then
 * DeliveryDeadLetters. Destination secrets are SST secrets named in the stage file.
 */
import { MAX_DELIVERY_RECEIVES } from '@diagnosis/functions/infrastructure';
import {
  deliveryTopics,
  destinationSecretNames,
  RUN_FINISHED_STREAM_FILTERS,
  revealEnterprises,
  runtimeDestinations,
} from '../delivery.ts';
import type { Secrets } from './diagnose.ts';
import type { Stage } from './stage.ts';
import type { Storage } from './table.ts';

export interface Delivery {
  resultsBus: sst.aws.Bus;
  deliveryQueue: sst.aws.Queue;
  deadLetters: sst.aws.Queue;
  functions: Record<'OnRunFinished' | 'DeliverResults', sst.aws.Function>;
}

export function createDelivery(stage: Stage, storage: Storage, secrets: Secrets, api: sst.aws.ApiGatewayV2): Delivery {
  const { functionCode } = stage.build;
  const { table, tableGrant, keyUse } = storage;
  const deliverySettings = stage.config.delivery;
  const resultsBus = new sst.aws.Bus('DiagnosisResults');
  const deadLetters = new sst.aws.Queue('DeliveryDeadLetters', {
    transform: { queue: { messageRetentionSeconds: 14 * 86_400 } },
  });
  // NOTE: the visibility timeout is six times DeliverResults' timeout (AWS's advice for an SQS event source).
  const deliveryQueue = new sst.aws.Queue('DeliveryQueue', {
    visibilityTimeout: '3 minutes',
    dlq: { queue: deadLetters.arn, retry: MAX_DELIVERY_RECEIVES },
  });
  resultsBus.subscribeQueue('RunFinishedToDelivery', deliveryQueue, {
    pattern: { source: ['diagnosis-agent'], detailType: ['Diagnosis Run Finished'] },
  });
  const topics = Object.fromEntries(
    deliveryTopics(deliverySettings).map((topic) => {
      const created = new sst.aws.SnsTopic(topic.resourceName);
      topic.emails.forEach((email, index) => {
        new aws.sns.TopicSubscription(`${topic.resourceName}Email${index + 1}`, {
          topic: created.arn,
          protocol: 'email',
          endpoint: email,
        });
      });
      return [topic.resourceName, created];
    }),
  );
  const destinationSecrets = destinationSecretNames(deliverySettings).map((name) => new sst.Secret(name));
  const deliveryEvent = {
    DIAGNOSIS_API_URL: api.url,
    ...(deliverySettings.price === undefined ? {} : { DELIVERY_PRICE: JSON.stringify(deliverySettings.price) }),
  };
  const onRunFinished = new sst.aws.Function('OnRunFinished', {
    ...functionCode('OnRunFinished', $cli.paths.root),
    runtime: 'nodejs24.x',
    architecture: 'arm64',
    timeout: '30 seconds',
    memory: '256 MB',
    environment: { DIAGNOSIS_RESULTS_BUS: resultsBus.name, ...deliveryEvent },
    permissions: [
      { actions: ['events:PutEvents'], resources: [resultsBus.arn] },
      { actions: ['sqs:SendMessage'], resources: [deadLetters.arn] },
      ...keyUse(['kms:Decrypt']),
    ],
  });
  table.subscribe('RunFinished', onRunFinished.arn, {
    filters: [...RUN_FINISHED_STREAM_FILTERS],
    transform: {
      eventSourceMapping: (args) => {
        args.functionResponseTypes = ['ReportBatchItemFailures'];
        args.bisectBatchOnFunctionError = true;
        args.maximumRetryAttempts = 10;
        args.destinationConfig = { onFailure: { destinationArn: deadLetters.arn } };
      },
    },
  });
  // NOTE: only when an enterprise opts in to receive real values (`delivery.reveal`) may DeliverResults open pseudonym
  // maps: then, and only then, it links MaskingKey and may Query the PSEUDONYMS#<runId> partitions.
  const revealing = revealEnterprises(deliverySettings);
  const deliverResults = new sst.aws.Function('DeliverResults', {
    ...functionCode('DeliverResults', $cli.paths.root),
    runtime: 'nodejs24.x',
    architecture: 'arm64',
    timeout: '30 seconds',
    // The memory its warm CPU calls for (BENCHMARKS.md, "Warm CPU per function"): about 6 ms of a vCPU per run
    // delivered, 44 ms at 256 MB's share, 22 ms at 512 MB's.
    memory: '512 MB',
    link: revealing.length === 0 ? destinationSecrets : [...destinationSecrets, secrets.maskingKey],
    environment: {
      DIAGNOSIS_TABLE_NAME: table.name,
      DELIVERY_QUEUE_URL: deliveryQueue.url,
      DELIVERY_DESTINATIONS: $jsonStringify(runtimeDestinations(deliverySettings, (name) => topics[name]?.arn)),
      ...(revealing.length === 0 ? {} : { DELIVERY_REVEAL: JSON.stringify(revealing) }),
      // Its records are kept as long as the runs they deliver.
      RETENTION_DAYS: String(stage.settings.RETENTION_DAYS),
      ...deliveryEvent,
    },
    permissions: [
      // It reads run items and writes only its own delivery records (their own partition, DELIVERY#<runId>).
      tableGrant(['GetItem'], ['RUN']),
      tableGrant(['UpdateItem', 'Query'], ['DELIVERY']),
      ...(revealing.length === 0 ? [] : [tableGrant(['Query'], ['PSEUDONYMS'])]),
      {
        actions: ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:ChangeMessageVisibility'],
        resources: [deliveryQueue.arn],
      },
      ...(Object.keys(topics).length === 0
        ? []
        : [{ actions: ['sns:Publish'], resources: Object.values(topics).map((topic) => topic.arn) }]),
      ...keyUse(['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey*']),
    ],
  });
  deliveryQueue.subscribe(deliverResults.arn, { batch: { size: 10, partialResponses: true } });
  return {
    resultsBus,
    deliveryQueue,
    deadLetters,
    functions: { OnRunFinished: onRunFinished, DeliverResults: deliverResults },
  };
}
