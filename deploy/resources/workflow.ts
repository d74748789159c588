/// <reference path="../../.sst/platform/config.d.ts" />
/**
 * The workflow: the DiagnosisWorkflow and DiagnosisBatch state machines that invoke Diagnose, and what closes the runs
 * nothing else would — OnWorkflowStopped (an execution stopped, failed or timed out) and SweepRuns (a run no
 * invocation can still be working on).
 */
import { buildDiagnosisBatchDefinition, buildDiagnosisWorkflowDefinition } from '@diagnosis/functions/workflows';
import type { Stage } from './stage.ts';
import type { Storage } from './table.ts';

export interface Workflows {
  workflow: aws.sfn.StateMachine;
  batch: aws.sfn.StateMachine;
  batchInput: sst.aws.Bucket;
}

const STATES_LOGGING = [
  'logs:CreateLogDelivery',
  'logs:GetLogDelivery',
  'logs:UpdateLogDelivery',
  'logs:DeleteLogDelivery',
  'logs:ListLogDeliveries',
  'logs:PutResourcePolicy',
  'logs:DescribeResourcePolicies',
  'logs:DescribeLogGroups',
];

/** One state machine with a role that allows exactly what its definition does, logging its errors. */
function stateMachine(
  name: string,
  definition: $util.Output<string>,
  statements: Record<string, unknown>[],
  physicalName?: string,
) {
  const role = new aws.iam.Role(`${name}Role`, {
    assumeRolePolicy: aws.iam.assumeRolePolicyForPrincipal({ Service: 'states.amazonaws.com' }),
    inlinePolicies: [
      {
        name: 'inline',
        policy: $jsonStringify({
          Version: '2012-10-17',
          Statement: [...statements, { Effect: 'Allow', Action: STATES_LOGGING, Resource: '*' }],
        }),
      },
    ],
  });
  const logGroup = new aws.cloudwatch.LogGroup(`${name}LogGroup`, {
    name: `/aws/states/${$app.name}-${$app.stage}-${name}`,
    retentionInDays: 30,
  });
  return new aws.sfn.StateMachine(name, {
    ...(physicalName === undefined ? {} : { name: physicalName }),
    type: 'STANDARD',
    roleArn: role.arn,
    definition,
    loggingConfiguration: {
      level: 'ERROR',
      includeExecutionData: false,
      logDestination: $interpolate`${logGroup.arn}:*`,
    },
  });
}

/**
 * Both state machines are built by one module (`@diagnosis/functions/workflows`) that the tests check with
 * asl-validator and run against the real handler; SST's StepFunctions component takes only its own state objects, so
 * the machines are Pulumi's, with roles that allow exactly what each definition does.
 */
export function createWorkflows(stage: Stage, diagnose: sst.aws.Function): Workflows {
  const { account, region, partition } = stage;
  const invokeDiagnose = {
    Effect: 'Allow',
    Action: ['lambda:InvokeFunction'],
    Resource: [diagnose.arn, $interpolate`${diagnose.arn}:*`],
  };
  const workflow = stateMachine(
    'DiagnosisWorkflow',
    diagnose.arn.apply((arn) => JSON.stringify(buildDiagnosisWorkflowDefinition({ diagnoseFunctionArn: arn }))),
    [invokeDiagnose],
  );

  // DiagnosisBatch: a Distributed Map over inline requests or an S3 JSON Lines object in this bucket. Its child
  // executions are executions of the batch machine itself, so its role may start, describe and stop those; it may
  // read objects of the input bucket only. The per-enterprise cap is the Diagnose function's (TENANT_MAX_CONCURRENT_RUNS).
  const batchInput = new sst.aws.Bucket('DiagnosisBatchInput');
  const batchName = `${$app.name}-${$app.stage}-DiagnosisBatch`;
  const batchMaxConcurrency = stage.config.batchMaxConcurrency;
  const batch = stateMachine(
    'DiagnosisBatch',
    diagnose.arn.apply((arn) =>
      JSON.stringify(buildDiagnosisBatchDefinition({ diagnoseFunctionArn: arn, maxConcurrency: batchMaxConcurrency })),
    ),
    [
      invokeDiagnose,
      {
        Effect: 'Allow',
        Action: ['states:StartExecution'],
        Resource: [$interpolate`arn:${partition}:states:${region}:${account}:stateMachine:${batchName}`],
      },
      {
        Effect: 'Allow',
        Action: ['states:DescribeExecution', 'states:StopExecution'],
        Resource: [
          $interpolate`arn:${partition}:states:${region}:${account}:execution:${batchName}:*`,
          $interpolate`arn:${partition}:states:${region}:${account}:execution:${batchName}/*`,
        ],
      },
      { Effect: 'Allow', Action: ['s3:GetObject'], Resource: [$interpolate`${batchInput.arn}/*`] },
    ],
    batchName,
  );
  return { workflow, batch, batchInput };
}

/**
 * A workflow execution stopped from the console (or by anyone with states:StopExecution) cancels its run too:
 * stopping an execution does not stop the Lambda it waits on, so the run's flag is set and its invocation stops.
 * One that failed or timed out closes its unfinished run as FAILED (nothing else would).
 */
export function createWorkflowStopped(stage: Stage, storage: Storage, { workflow, batch }: Workflows) {
  const { functionCode } = stage.build;
  const onWorkflowStopped = new sst.aws.Function('OnWorkflowStopped', {
    ...functionCode('OnWorkflowStopped', $cli.paths.root),
    runtime: 'nodejs24.x',
    architecture: 'arm64',
    timeout: '10 seconds',
    memory: '256 MB',
    environment: {
      DIAGNOSIS_TABLE_NAME: storage.table.name,
      DIAGNOSIS_WORKFLOW_ARN: workflow.arn,
      DIAGNOSIS_BATCH_ARN: batch.arn,
      FLUSH_RESERVE_MS: String(stage.settings.FLUSH_RESERVE_MS),
    },
    permissions: [
      // NOTE: Query reads a run's audit (its own partition) to store the process scorecard of a run it closes.
      storage.tableGrant(['GetItem', 'UpdateItem', 'Query'], ['RUN', 'TENANT_OPEN']),
      ...storage.keyUse(['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey*']),
    ],
  });
  // The executions of the DiagnosisWorkflow, and the Distributed Map child executions of the DiagnosisBatch (their
  // state machine ARN is the batch's, followed by `/<map run label>`): each item's run is closed like a single one.
  const stoppedRule = new aws.cloudwatch.EventRule('DiagnosisWorkflowStopped', {
    eventPattern: $jsonStringify({
      source: ['aws.states'],
      'detail-type': ['Step Functions Execution Status Change'],
      detail: {
        status: ['ABORTED', 'FAILED', 'TIMED_OUT'],
        stateMachineArn: [workflow.arn, batch.arn, { prefix: $interpolate`${batch.arn}/` }],
      },
    }),
  });
  new aws.cloudwatch.EventTarget('DiagnosisWorkflowStoppedTarget', {
    rule: stoppedRule.name,
    arn: onWorkflowStopped.arn,
  });
  new aws.lambda.Permission('DiagnosisWorkflowStoppedInvoke', {
    action: 'lambda:InvokeFunction',
    function: onWorkflowStopped.name,
    principal: 'events.amazonaws.com',
    sourceArn: stoppedRule.arn,
  });
  return onWorkflowStopped;
}

/**
 * The sweeper: every 5 minutes, every open run that no invocation can still be working on (its deadline, flush
 * reserve and a 60 s margin passed with no heartbeat; a QUEUED run past its workflow's longest wait) is closed
 * FAILED RUN_ABANDONED and its lease slot freed — whatever started it. It reads the open-runs items through gsi1.
 */
export function createSweeper(stage: Stage, storage: Storage) {
  const { functionCode } = stage.build;
  const { table, tableGrant, keyUse } = storage;
  const sweepRuns = new sst.aws.Function('SweepRuns', {
    ...functionCode('SweepRuns', $cli.paths.root),
    runtime: 'nodejs24.x',
    architecture: 'arm64',
    timeout: '1 minute',
    memory: '256 MB',
    environment: { DIAGNOSIS_TABLE_NAME: table.name, FLUSH_RESERVE_MS: String(stage.settings.FLUSH_RESERVE_MS) },
    permissions: [
      tableGrant(['GetItem', 'UpdateItem', 'Query', 'DeleteItem'], ['RUN', 'TENANT_OPEN', 'TENANT_LEASE']),
      // NOTE: gsi1 is also the session index; LeadingKeys keeps the sweeper on the open-runs index key only.
      {
        actions: ['dynamodb:Query'],
        resources: [$interpolate`${table.arn}/index/gsi1`],
        conditions: [{ test: 'ForAllValues:StringEquals', variable: 'dynamodb:LeadingKeys', values: ['OPEN_RUNS'] }],
      },
      ...keyUse(['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey*']),
    ],
  });
  const sweepSchedule = new aws.cloudwatch.EventRule('SweepRunsSchedule', { scheduleExpression: 'rate(5 minutes)' });
  new aws.cloudwatch.EventTarget('SweepRunsTarget', { rule: sweepSchedule.name, arn: sweepRuns.arn });
  new aws.lambda.Permission('SweepRunsInvoke', {
    action: 'lambda:InvokeFunction',
    function: sweepRuns.name,
    principal: 'events.amazonaws.com',
    sourceArn: sweepSchedule.arn,
  });
  return sweepRuns;
}
