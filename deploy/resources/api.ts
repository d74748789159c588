/// <reference path="../../.sst/platform/config.d.ts" />
/**
 * The APIs and their functions: the IAM-only InternalApi (the run readers, start and cancel, a responder's rating,
 * past incidents) and the IngressApi, where each route that senders outside AWS call is authenticated by its handler
 * with the sender's own credential and throttled by its own route settings.
 */
import { type PartitionName, RATING_SETTING_NAMES, RATING_TABLE_ACCESS } from '@diagnosis/functions/infrastructure';
import { buildIngressStageSettings } from '../ingress.ts';
import type { Secrets } from './diagnose.ts';
import { pickSettings, type Stage } from './stage.ts';
import type { Storage } from './table.ts';
import type { Workflows } from './workflow.ts';

export interface Apis {
  api: sst.aws.ApiGatewayV2;
  ingress: sst.aws.ApiGatewayV2;
  /** Adds a route to the IngressApi (no IAM: its function checks the sender's own credential). */
  ingressRoute(routeKey: string, target: $util.Input<string>): void;
  /** Says every ingress route is created: the IngressApi's stage may now name them. */
  ingressRoutesCreated(): void;
  readers: Record<'GetRun' | 'GetRunAudit' | 'GetRunReasoning' | 'GetRunReveal', sst.aws.Function>;
}

/** The InternalApi with the run readers, and the IngressApi (its routes come from the capabilities that have some). */
export function createApis(stage: Stage, storage: Storage, secrets: Secrets): Apis {
  const { functionCode } = stage.build;
  const { tableGrant, keyUse, table } = storage;
  // The read functions may only read the table, and only the partitions they serve: `dynamodb:LeadingKeys` keeps
  // the run and audit readers out of the REASONING#<runId> and PSEUDONYMS#<runId> partitions; only the reasoning
  // reader gets the first and only the reveal reader the second. Each route is its own function, so execute-api
  // access to each is granted separately too.
  const readOnlyFunction = (
    name: 'GetRun' | 'GetRunAudit' | 'GetRunReasoning' | 'GetRunReveal',
    partitions: PartitionName[],
    link: sst.Secret[],
  ) =>
    new sst.aws.Function(name, {
      ...functionCode(name, $cli.paths.root),
      runtime: 'nodejs24.x',
      architecture: 'arm64',
      timeout: '10 seconds',
      memory: '256 MB',
      concurrency: { reserved: stage.config.reservedConcurrency.api },
      link,
      environment: { DIAGNOSIS_TABLE_NAME: table.name, ...stage.tenantAccess },
      permissions: [tableGrant(['GetItem', 'Query'], partitions), ...keyUse(['kms:Decrypt'])],
    });
  // GetRun also lists the run's deliveries and feedback (their own DELIVERY#<runId> and FEEDBACK#<runId>
  // partitions), read-only like the rest.
  const getRun = readOnlyFunction('GetRun', ['RUN', 'DELIVERY', 'FEEDBACK', 'PAST'], []);
  const getRunAudit = readOnlyFunction('GetRunAudit', ['RUN'], []);
  const getRunReasoning = readOnlyFunction('GetRunReasoning', ['RUN', 'REASONING'], []);
  const getRunReveal = readOnlyFunction('GetRunReveal', ['RUN', 'PSEUDONYMS'], [secrets.maskingKey]);

  // NOTE: the InternalApi is IAM-only: every route `auth: { iam: true }`. What senders outside AWS call (Slack, the
  // incident webhooks) is on the IngressApi below, each route authenticated by its sender's own credential.
  const api = new sst.aws.ApiGatewayV2('InternalApi');
  api.route('GET /runs/{runId}', getRun.arn, { auth: { iam: true } });
  api.route('GET /runs/{runId}/audit', getRunAudit.arn, { auth: { iam: true } });
  api.route('GET /runs/{runId}/reasoning', getRunReasoning.arn, { auth: { iam: true } });
  api.route('GET /runs/{runId}/reveal', getRunReveal.arn, { auth: { iam: true } });

  // The ingress edge (docs/security.md, "Every route"): the routes that senders outside AWS call, none behind IAM,
  // each authenticated by its handler with the sender's own credential, each with its own throttle (the stage file's
  // `ingress.throttling` or the defaults of deploy/ingress.ts). NOTE: a stage may name only routes that exist, and
  // SST creates an API's stage with the API: the stage's route settings are those of the routes created below,
  // and the stage waits for them.
  const ingressRoutes: { routeKey: string; route: $util.Input<$util.Resource> }[] = [];
  let ingressRoutesCreated: () => void = () => undefined;
  const ingressRoutesReady = new Promise<void>((resolve) => {
    ingressRoutesCreated = resolve;
  });
  const ingress = new sst.aws.ApiGatewayV2('IngressApi', {
    transform: {
      stage: (args, opts) => {
        const settings = ingressRoutesReady.then(() =>
          buildIngressStageSettings(
            stage.config.ingress,
            ingressRoutes.map((entry) => entry.routeKey),
          ),
        );
        args.defaultRouteSettings = settings.then((built) => built.defaultRouteSettings);
        args.routeSettings = settings.then((built) => built.routeSettings);
        const routes: Promise<$util.Input<$util.Resource>[]> = ingressRoutesReady.then(() =>
          ingressRoutes.map((entry) => entry.route),
        );
        opts.dependsOn = routes;
      },
    },
  });
  const ingressRoute = (routeKey: string, target: $util.Input<string>) => {
    ingressRoutes.push({ routeKey, route: ingress.route(routeKey, target).nodes.route });
  };
  return {
    api,
    ingress,
    ingressRoute,
    ingressRoutesCreated: () => ingressRoutesCreated(),
    readers: { GetRun: getRun, GetRunAudit: getRunAudit, GetRunReasoning: getRunReasoning, GetRunReveal: getRunReveal },
  };
}

/** What a rating needs of the table and of the settings: the functions that record ratings get exactly that. */
export interface RatingAccess {
  grants: sst.aws.FunctionPermissionArgs[];
  environment: Record<string, string>;
}

export interface RunRoutes {
  functions: Record<'StartDiagnosis' | 'CancelRun' | 'RunFeedback' | 'PastIncidents', sst.aws.Function>;
  rating: RatingAccess;
}

/** The InternalApi's routes that write: start and cancel a run, rate it, list and forget past incidents. */
export function createRunRoutes(
  stage: Stage,
  storage: Storage,
  secrets: Secrets,
  { api }: Apis,
  { workflow }: Workflows,
): RunRoutes {
  const { functionCode } = stage.build;
  const { tableGrant, keyUse, table } = storage;
  const { settings } = stage;
  // The asynchronous API: POST /diagnoses queues the run and starts its execution (named by the runId); the cancel
  // route flags the run and stops the execution. Both may touch only run items (RUN#*) and this workflow.
  const executionsArn = $interpolate`${workflow.arn}`.apply(
    (arn) => `${arn.replace(':stateMachine:', ':execution:')}:*`,
  );
  const runWriter = (
    name: 'StartDiagnosis' | 'CancelRun',
    workflowPermissions: { actions: string[]; resources: $util.Input<string>[] }[],
  ) =>
    new sst.aws.Function(name, {
      ...functionCode(name, $cli.paths.root),
      runtime: 'nodejs24.x',
      architecture: 'arm64',
      timeout: '30 seconds',
      memory: '256 MB',
      concurrency: { reserved: stage.config.reservedConcurrency.api },
      environment: {
        DIAGNOSIS_TABLE_NAME: table.name,
        DIAGNOSIS_WORKFLOW_ARN: workflow.arn,
        TENANT_MAX_OPEN_RUNS: String(settings.TENANT_MAX_OPEN_RUNS),
        ...stage.tenantAccess,
      },
      permissions: [
        // Run items, and each enterprise's open-runs item (admission control: a new run is admitted in one
        // transaction with its run item; TransactWriteItems checks the actions of each of its items).
        tableGrant(['GetItem', 'PutItem', 'UpdateItem'], ['RUN', 'TENANT_OPEN']),
        ...workflowPermissions,
        ...keyUse(['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey*']),
      ],
    });
  // NOTE: the start reads the execution under the run's name when StartExecution says it exists (whose it is).
  const startDiagnosis = runWriter('StartDiagnosis', [
    { actions: ['states:StartExecution'], resources: [workflow.arn] },
    { actions: ['states:DescribeExecution'], resources: [executionsArn] },
  ]);
  const cancelRun = runWriter('CancelRun', [{ actions: ['states:StopExecution'], resources: [executionsArn] }]);
  api.route('POST /diagnoses', startDiagnosis.arn, { auth: { iam: true } });
  api.route('POST /runs/{runId}/cancel', cancelRun.arn, { auth: { iam: true } });

  // A responder's verdict on a run (functions/ratings/): it may read run items (the tenant check) and do what a
  // rating does of the table — write feedback items, read and add to runs' pseudonym maps (a rating is masked with
  // its run's pseudonyms; new ones join the map so the reveal shows them), remember or retract the run's past
  // incident — nothing else, so it can never change a run or its audit. It never answers with a map's values.
  // SlackWork records ratings too, with the same grants and settings.
  const rating: RatingAccess = {
    grants: RATING_TABLE_ACCESS.map(({ actions, names }) => tableGrant([...actions], [...names])),
    environment: pickSettings(stage, RATING_SETTING_NAMES),
  };
  // NOTE: 512 MB: a rating masks its text and writes the past incident, about 10 ms of a vCPU warm, 66 ms at
  // 256 MB's share (BENCHMARKS.md, "Warm CPU per function").
  const runFeedback = new sst.aws.Function('RunFeedback', {
    ...functionCode('RunFeedback', $cli.paths.root),
    runtime: 'nodejs24.x',
    architecture: 'arm64',
    timeout: '10 seconds',
    memory: '512 MB',
    concurrency: { reserved: stage.config.reservedConcurrency.api },
    link: [secrets.maskingKey],
    environment: {
      DIAGNOSIS_TABLE_NAME: table.name,
      ...stage.tenantAccess,
      // The masking the runs were masked with, so a rating is masked the same way, and the memory's retention.
      ...rating.environment,
    },
    permissions: [
      tableGrant(['GetItem'], ['RUN']),
      ...rating.grants,
      ...keyUse(['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey*']),
    ],
  });
  api.route('POST /runs/{runId}/feedback', runFeedback.arn, { auth: { iam: true } });

  // An enterprise's past incidents: listed and forgotten (tenant-checked in the handler), nothing but PAST#* items.
  const pastIncidents = new sst.aws.Function('PastIncidents', {
    ...functionCode('PastIncidents', $cli.paths.root),
    runtime: 'nodejs24.x',
    architecture: 'arm64',
    timeout: '10 seconds',
    memory: '256 MB',
    concurrency: { reserved: stage.config.reservedConcurrency.api },
    environment: { DIAGNOSIS_TABLE_NAME: table.name, ...stage.tenantAccess },
    permissions: [
      tableGrant(['GetItem', 'Query', 'PutItem', 'DeleteItem', 'ConditionCheckItem'], ['PAST']),
      ...keyUse(['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey*']),
    ],
  });
  api.route('GET /enterprises/{enterpriseId}/past-incidents', pastIncidents.arn, { auth: { iam: true } });
  api.route('DELETE /enterprises/{enterpriseId}/past-incidents/{runId}', pastIncidents.arn, { auth: { iam: true } });
  return {
    functions: {
      StartDiagnosis: startDiagnosis,
      CancelRun: cancelRun,
      RunFeedback: runFeedback,
      PastIncidents: pastIncidents,
    },
    rating,
  };
}
