/// <reference path="../../.sst/platform/config.d.ts" />
/**
 * The table and its stream: one DynamoDB table for every item kind (runs, audit, reasoning, deliveries, Slack cards,
 * memory, …; docs/data-model.md), its key in production, and the one shape every function's grant on it takes.
 */
import { type PartitionName, partitionPatterns } from '@diagnosis/functions/infrastructure';
import type { Stage } from './stage.ts';

export interface Storage {
  table: sst.aws.Dynamo;
  /** The table's index names (the dashboard watches each). */
  globalIndexNames: string[];
  /** The KMS actions on the table's key a function needs beside its table grant (none without a key of our own). */
  keyUse(actions: string[]): sst.aws.FunctionPermissionArgs[];
  /** A grant on the table limited to the partitions a function serves, named as the item registry names them. */
  tableGrant(actions: string[], partitions: PartitionName[]): sst.aws.FunctionPermissionArgs;
}

export function createStorage(stage: Stage): Storage {
  const { production } = stage;
  // NOTE: production data is encrypted with a key of our own, so its use is in CloudTrail and can be revoked.
  const tableKey = production
    ? new aws.kms.Key('DiagnosisTableKey', {
        description: 'Diagnosis Agent table (runs, audit, reasoning)',
        enableKeyRotation: true,
        deletionWindowInDays: 30,
      })
    : undefined;
  const globalIndexes = { gsi1: { hashKey: 'gsi1pk', rangeKey: 'gsi1sk', projection: 'all' } } as const;
  const table = new sst.aws.Dynamo('DiagnosisTable', {
    fields: { pk: 'string', sk: 'string', gsi1pk: 'string', gsi1sk: 'string' },
    primaryIndex: { hashKey: 'pk', rangeKey: 'sk' },
    globalIndexes,
    ttl: 'ttl',
    // The result events are emitted from this stream (functions/delivery/publish-run-finished.ts).
    stream: 'new-and-old-images',
    deletionProtection: production,
    transform: {
      table: (args) => {
        args.pointInTimeRecovery = { enabled: production };
        if (tableKey !== undefined) args.serverSideEncryption = { enabled: true, kmsKeyArn: tableKey.arn };
      },
    },
  });
  return {
    table,
    globalIndexNames: Object.keys(globalIndexes),
    keyUse: (actions) =>
      tableKey === undefined ? [] : [{ actions: [...actions, 'kms:DescribeKey'], resources: [tableKey.arn] }],
    // NOTE: a grant on the table limited to the partitions a function serves (`dynamodb:LeadingKeys`): one shape for
    // every function, so a function can never be given the table without naming its partitions, each by its name in
    // the item registry (functions/lambda/item-kinds.ts, which docs/data-model.md's tables are generated from).
    tableGrant: (actions, partitions) => ({
      actions: actions.map((action) => `dynamodb:${action}`),
      resources: [table.arn],
      conditions: [
        { test: 'ForAllValues:StringLike', variable: 'dynamodb:LeadingKeys', values: partitionPatterns(partitions) },
      ],
    }),
  };
}
