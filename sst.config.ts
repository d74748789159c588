/// <reference path="./.sst/platform/config.d.ts" />

/**
 * The Diagnosis Agent on AWS: one DynamoDB table, the model key and MySQL URL as secrets, the Diagnose function,
 * the DiagnosisWorkflow and DiagnosisBatch state machines that invoke it, an IAM-only InternalApi with the read
 * and audit functions, an IngressApi for the senders outside AWS (Slack, incident webhooks; each route checks its
 * sender's own credential), and alarms (to an SNS topic) and a dashboard.
 * Deploy with `npx sst deploy --stage prod`; the `prod` stage keeps and protects its data. A stage's settings come
 * from `deploy/<stage>.json` (see deploy/stage-config.ts), never from the deploying shell.
 */
export default $config({
  app(input) {
    const production = input?.stage === 'prod';
    return {
      name: 'diagnosis-agent',
      home: 'aws',
      removal: production ? 'retain' : 'remove',
      protect: production,
    };
  },
  async run() {
    const production = $app.stage === 'prod';
    // The stage's settings come from its committed file, deploy/<stage>.json (deploy/default.json for a stage
    // without one, never for prod), checked with the functions' own settings parse; not from the deploying shell.
    const { PRODUCTION_STAGE, buildLogsQueryPermissions, ignoredShellSettings, loadStageConfig } = await import(
      './deploy/stage-config.ts'
    );
    // NOTE: the app's root as SST resolves `copyFiles` against it (`$cli.paths.root`), whatever folder you deploy from.
    const stageConfig = loadStageConfig($cli.paths.root, $app.stage);
    if (production !== (PRODUCTION_STAGE === $app.stage)) throw new Error('app() and deploy/ disagree on prod');
    console.log(`stage ${$app.stage}: settings from ${stageConfig.file}`);
    const ignored = ignoredShellSettings(process.env);
    if (ignored.length > 0) {
      console.warn(`!!! ignored from your shell (settings come from ${stageConfig.file} now): ${ignored.join(', ')}`);
    }
    if (stageConfig.exampleEvidence.length > 0) {
      console.warn(`!!! stage ${$app.stage} deploys the example world: ${stageConfig.exampleEvidence.join(', ')}`);
    }

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
    const modelApiKey = new sst.Secret('ModelApiKey');
    // The SemanticGuard's own key, for a judge on another provider than the agent's (SEMANTIC_GUARD_MODEL_PROFILE,
    // docs/models.md): `sst secret set JudgeApiKey <key>`. "none" (the default): the judge uses ModelApiKey. Only
    // Diagnose, which runs the judge, links it.
    const judgeApiKey = new sst.Secret('JudgeApiKey', 'none');
    // Each run's masking keys are derived from this secret (`sst secret set MaskingKey <32+ random characters>`): the
    // pseudonyms' HMAC and the seal of the pseudonym map. Only Diagnose (masks), RunFeedback (masks a rating with its
    // run's pseudonyms) and GetRunReveal (opens) link it, and DeliverResults when the stage file opts an enterprise in
    // to the delivery's reveal (`delivery.reveal`).
    const maskingKey = new sst.Secret('MaskingKey');
    // "none" means no MySQL: query_mysql then answers NOT_CONFIGURED.
    const mysqlUrl = new sst.Secret('MysqlUrl', 'none');

    // NOTE: no NODE_OPTIONS=--enable-source-maps: no source maps are shipped (scripts/build-functions.ts).
    const environment: Record<string, string> = {};
    Object.assign(environment, stageConfig.environment);
    // The SemanticGuard is always named in a deployment: `enforce` unless the stage file chose `shadow` or `off`.
    environment.SEMANTIC_GUARD = stageConfig.settings.SEMANTIC_GUARD;
    if (stageConfig.settings.TENANT_ACCESS === undefined) {
      console.warn(
        [
          '',
          '!!! TENANT_ACCESS is not set: every IAM principal allowed on the API may use EVERY enterprise and read',
          `!!! every run. Set it in ${stageConfig.file} before real tenants use this stage (README, "Security model");`,
          '!!! a single-tenant stage can say so with "TENANT_ACCESS": [{ "principal": "*", "enterprises": ["E1001"] }].',
          '',
        ].join('\n'),
      );
    }
    const keyUse = (actions: string[]): sst.aws.FunctionPermissionArgs[] =>
      tableKey === undefined ? [] : [{ actions: [...actions, 'kms:DescribeKey'], resources: [tableKey.arn] }];
    // NOTE: a grant on the table limited to the partitions a function serves (`dynamodb:LeadingKeys`): one shape for
    // every function, so a function can never be given the table without naming its partitions.
    const tableGrant = (actions: string[], partitions: string[]): sst.aws.FunctionPermissionArgs => ({
      actions: actions.map((action) => `dynamodb:${action}`),
      resources: [table.arn],
      conditions: [{ test: 'ForAllValues:StringLike', variable: 'dynamodb:LeadingKeys', values: partitions }],
    });
    const permissions: sst.aws.FunctionPermissionArgs[] = [
      ...keyUse(['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey*', 'kms:ReEncrypt*']),
    ];
    const settings = stageConfig.settings;
    const account = aws.getCallerIdentityOutput().accountId;
    const region = aws.getRegionOutput().region;
    const partition = aws.getPartitionOutput().partition;
    if (settings.KNOWLEDGE_BACKEND === 'bedrock') {
      permissions.push({
        actions: ['bedrock:Retrieve'],
        resources: [
          $interpolate`arn:${partition}:bedrock:${region}:${account}:knowledge-base/${settings.BEDROCK_KNOWLEDGE_BASE_ID}`,
        ],
      });
    }
    // StartQuery only on the configured log groups (see buildLogsQueryPermissions for GetQueryResults/StopQuery).
    permissions.push(
      ...buildLogsQueryPermissions(
        settings,
        (name) => $interpolate`arn:${partition}:logs:${region}:${account}:log-group:${name}`,
      ),
    );
    const copyFiles = [{ from: settings.MYSQL_CATALOG_PATH }];
    if (settings.KNOWLEDGE_BACKEND !== 'bedrock') {
      // The runbooks are indexed here, at deploy time: a cold start then loads one file instead of indexing them.
      const { writeKnowledgeIndex } = await import('./scripts/build-knowledge-index.ts');
      await writeKnowledgeIndex(settings.KNOWLEDGE_DIR, '.data/knowledge-index.bin');
      environment.KNOWLEDGE_INDEX_PATH = '.data/knowledge-index.bin';
      copyFiles.push({ from: '.data/knowledge-index.bin' });
    }
    if (settings.LOGS_BACKEND !== 'cloudwatch') copyFiles.push({ from: settings.LOGS_DIR });

    // Every function's code is its folder from `npm run build:functions` (SST's `bundle` option), built here first:
    // what is deployed is exactly what that build wrote and what bench/lambda-bundle.ts measures.
    const { spawnSync } = await import('node:child_process');
    const built = spawnSync('npm', ['run', '-s', 'build:functions'], { cwd: $cli.paths.root, stdio: 'inherit' });
    if (built.status !== 0) {
      throw new Error('npm run build:functions failed');
    }
    const { functionCode } = await import('./scripts/lambda-functions.ts');

    const diagnose = new sst.aws.Function('Diagnose', {
      ...functionCode('Diagnose', $cli.paths.root),
      runtime: 'nodejs24.x',
      architecture: 'arm64',
      // A run is at most 8 model rounds; DeepSeek thinking rounds take 5–30 s each. The run's own deadline is the
      // remaining time minus FLUSH_RESERVE_MS, so the audit is always flushed before Lambda stops the function.
      timeout: '5 minutes',
      // Peak RSS of a full end-to-end diagnosis is about 145 MB (BENCHMARKS.md at ab0baaf): 256 MB would fit, 512 MB
      // buys CPU (Lambda allots CPU by memory) for the cold start and the JSON work of each round.
      memory: '512 MB',
      // NOTE: reserved concurrency (deploy/<stage>.json's `reservedConcurrency`) is a floor and a ceiling: a flood of
      // diagnoses cannot take the account's concurrency from the API, nor the API's from the diagnoses.
      concurrency: { reserved: stageConfig.reservedConcurrency.Diagnose },
      link: [table, modelApiKey, judgeApiKey, mysqlUrl, maskingKey],
      environment,
      permissions,
      copyFiles,
      logging: { retention: '3 months', format: 'json' },
    });

    // The read functions may only read the table, and only the partitions they serve: `dynamodb:LeadingKeys` keeps
    // the run and audit readers out of the REASONING#<runId> and PSEUDONYMS#<runId> partitions; only the reasoning
    // reader gets the first and only the reveal reader the second. Each route is its own function, so execute-api
    // access to each is granted separately too.
    const readOnlyFunction = (
      name: 'GetRun' | 'GetRunAudit' | 'GetRunReasoning' | 'GetRunReveal',
      partitions: string[],
      link: sst.Secret[],
    ) =>
      new sst.aws.Function(name, {
        ...functionCode(name, $cli.paths.root),
        runtime: 'nodejs24.x',
        architecture: 'arm64',
        timeout: '10 seconds',
        memory: '256 MB',
        concurrency: { reserved: stageConfig.reservedConcurrency.api },
        link,
        environment: {
          DIAGNOSIS_TABLE_NAME: table.name,
          ...(environment.TENANT_ACCESS === undefined ? {} : { TENANT_ACCESS: environment.TENANT_ACCESS }),
        },
        permissions: [tableGrant(['GetItem', 'Query'], partitions), ...keyUse(['kms:Decrypt'])],
      });
    // GetRun also lists the run's deliveries and feedback (their own DELIVERY#<runId> and FEEDBACK#<runId>
    // partitions), read-only like the rest.
    const getRun = readOnlyFunction('GetRun', ['RUN#*', 'DELIVERY#*', 'FEEDBACK#*', 'PAST#*'], []);
    const getRunAudit = readOnlyFunction('GetRunAudit', ['RUN#*'], []);
    const getRunReasoning = readOnlyFunction('GetRunReasoning', ['RUN#*', 'REASONING#*'], []);
    const getRunReveal = readOnlyFunction('GetRunReveal', ['RUN#*', 'PSEUDONYMS#*'], [maskingKey]);

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
    const { buildIngressStageSettings } = await import('./deploy/ingress.ts');
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
              stageConfig.ingress,
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

    // Both state machines are built by one module (`@diagnosis/functions/workflows`) that the tests check
    // with asl-validator and run against the real handler; SST's StepFunctions component takes only its own state
    // objects, so the machines are Pulumi's, with roles that allow exactly what each definition does.
    const { buildDiagnosisBatchDefinition, buildDiagnosisWorkflowDefinition } = await import(
      '@diagnosis/functions/workflows'
    );
    const statesLogging = [
      'logs:CreateLogDelivery',
      'logs:GetLogDelivery',
      'logs:UpdateLogDelivery',
      'logs:DeleteLogDelivery',
      'logs:ListLogDeliveries',
      'logs:PutResourcePolicy',
      'logs:DescribeResourcePolicies',
      'logs:DescribeLogGroups',
    ];
    const invokeDiagnose = {
      Effect: 'Allow',
      Action: ['lambda:InvokeFunction'],
      Resource: [diagnose.arn, $interpolate`${diagnose.arn}:*`],
    };
    const stateMachine = (
      name: string,
      definition: $util.Output<string>,
      statements: Record<string, unknown>[],
      physicalName?: string,
    ) => {
      const role = new aws.iam.Role(`${name}Role`, {
        assumeRolePolicy: aws.iam.assumeRolePolicyForPrincipal({ Service: 'states.amazonaws.com' }),
        inlinePolicies: [
          {
            name: 'inline',
            policy: $jsonStringify({
              Version: '2012-10-17',
              Statement: [...statements, { Effect: 'Allow', Action: statesLogging, Resource: '*' }],
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
    const batchMaxConcurrency = stageConfig.batchMaxConcurrency;
    const batch = stateMachine(
      'DiagnosisBatch',
      diagnose.arn.apply((arn) =>
        JSON.stringify(
          buildDiagnosisBatchDefinition({ diagnoseFunctionArn: arn, maxConcurrency: batchMaxConcurrency }),
        ),
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
        concurrency: { reserved: stageConfig.reservedConcurrency.api },
        environment: {
          DIAGNOSIS_TABLE_NAME: table.name,
          DIAGNOSIS_WORKFLOW_ARN: workflow.arn,
          TENANT_MAX_OPEN_RUNS: String(settings.TENANT_MAX_OPEN_RUNS),
          ...(environment.TENANT_ACCESS === undefined ? {} : { TENANT_ACCESS: environment.TENANT_ACCESS }),
        },
        permissions: [
          // Run items, and each enterprise's open-runs item (admission control: a new run is admitted in one
          // transaction with its run item; TransactWriteItems checks the actions of each of its items).
          tableGrant(['GetItem', 'PutItem', 'UpdateItem'], ['RUN#*', 'TENANT#*#OPEN']),
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
    const { RATING_SETTING_NAMES, RATING_TABLE_ACCESS } = await import('@diagnosis/functions/infrastructure');
    const ratingGrants = RATING_TABLE_ACCESS.map(({ actions, partitions }) =>
      tableGrant([...actions], [...partitions]),
    );
    const ratingEnvironment = Object.fromEntries(
      RATING_SETTING_NAMES.filter((key) => environment[key] !== undefined).map((key) => [key, environment[key]]),
    );
    const runFeedback = new sst.aws.Function('RunFeedback', {
      ...functionCode('RunFeedback', $cli.paths.root),
      runtime: 'nodejs24.x',
      architecture: 'arm64',
      timeout: '10 seconds',
      memory: '256 MB',
      concurrency: { reserved: stageConfig.reservedConcurrency.api },
      link: [maskingKey],
      environment: {
        DIAGNOSIS_TABLE_NAME: table.name,
        ...(environment.TENANT_ACCESS === undefined ? {} : { TENANT_ACCESS: environment.TENANT_ACCESS }),
        // The masking the runs were masked with, so a rating is masked the same way, and the memory's retention.
        ...ratingEnvironment,
      },
      permissions: [
        tableGrant(['GetItem'], ['RUN#*']),
        ...ratingGrants,
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
      concurrency: { reserved: stageConfig.reservedConcurrency.api },
      environment: {
        DIAGNOSIS_TABLE_NAME: table.name,
        ...(environment.TENANT_ACCESS === undefined ? {} : { TENANT_ACCESS: environment.TENANT_ACCESS }),
      },
      permissions: [
        tableGrant(['GetItem', 'Query', 'PutItem', 'DeleteItem', 'ConditionCheckItem'], ['PAST#*']),
        ...keyUse(['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey*']),
      ],
    });
    api.route('GET /enterprises/{enterpriseId}/past-incidents', pastIncidents.arn, { auth: { iam: true } });
    api.route('DELETE /enterprises/{enterpriseId}/past-incidents/{runId}', pastIncidents.arn, { auth: { iam: true } });

    // A workflow execution stopped from the console (or by anyone with states:StopExecution) cancels its run too:
    // stopping an execution does not stop the Lambda it waits on, so the run's flag is set and its invocation stops.
    // One that failed or timed out closes its unfinished run as FAILED (nothing else would).
    const onWorkflowStopped = new sst.aws.Function('OnWorkflowStopped', {
      ...functionCode('OnWorkflowStopped', $cli.paths.root),
      runtime: 'nodejs24.x',
      architecture: 'arm64',
      timeout: '10 seconds',
      memory: '256 MB',
      environment: {
        DIAGNOSIS_TABLE_NAME: table.name,
        DIAGNOSIS_WORKFLOW_ARN: workflow.arn,
        DIAGNOSIS_BATCH_ARN: batch.arn,
        FLUSH_RESERVE_MS: String(settings.FLUSH_RESERVE_MS),
      },
      permissions: [
        // NOTE: Query reads a run's audit (its own partition) to store the process scorecard of a run it closes.
        tableGrant(['GetItem', 'UpdateItem', 'Query'], ['RUN#*', 'TENANT#*#OPEN']),
        ...keyUse(['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey*']),
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

    // Delivery of every result (docs/delivery.md): the table's stream → OnRunFinished puts one `Diagnosis Run
    // Finished` on the DiagnosisResults bus per run that ended, whatever ended it → a rule → DeliveryQueue →
    // DeliverResults sends it to the run's enterprise's destinations (Slack, SNS, signed webhooks), retried with
    // backoff, then DeliveryDeadLetters. Destination secrets are SST secrets named in the stage file.
    const {
      RUN_FINISHED_STREAM_FILTERS,
      deliveryTopics,
      destinationSecretNames,
      revealEnterprises,
      runtimeDestinations,
    } = await import('./deploy/delivery.ts');
    const { MAX_DELIVERY_RECEIVES } = await import('@diagnosis/functions/infrastructure');
    const deliverySettings = stageConfig.delivery;
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
      memory: '256 MB',
      link: revealing.length === 0 ? destinationSecrets : [...destinationSecrets, maskingKey],
      environment: {
        DIAGNOSIS_TABLE_NAME: table.name,
        DELIVERY_QUEUE_URL: deliveryQueue.url,
        DELIVERY_DESTINATIONS: $jsonStringify(runtimeDestinations(deliverySettings, (name) => topics[name]?.arn)),
        ...(revealing.length === 0 ? {} : { DELIVERY_REVEAL: JSON.stringify(revealing) }),
        ...deliveryEvent,
      },
      permissions: [
        // It reads run items and writes only its own delivery records (their own partition, DELIVERY#<runId>).
        tableGrant(['GetItem'], ['RUN#*']),
        tableGrant(['UpdateItem', 'Query'], ['DELIVERY#*']),
        ...(revealing.length === 0 ? [] : [tableGrant(['Query'], ['PSEUDONYMS#*'])]),
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

    // The sweeper: every 5 minutes, every open run that no invocation can still be working on (its deadline, flush
    // reserve and a 60 s margin passed with no heartbeat; a QUEUED run past its workflow's longest wait) is closed
    // FAILED RUN_ABANDONED and its lease slot freed — whatever started it. It reads the open-runs items through gsi1.
    const sweepRuns = new sst.aws.Function('SweepRuns', {
      ...functionCode('SweepRuns', $cli.paths.root),
      runtime: 'nodejs24.x',
      architecture: 'arm64',
      timeout: '1 minute',
      memory: '256 MB',
      environment: { DIAGNOSIS_TABLE_NAME: table.name, FLUSH_RESERVE_MS: String(settings.FLUSH_RESERVE_MS) },
      permissions: [
        tableGrant(['GetItem', 'UpdateItem', 'Query', 'DeleteItem'], ['RUN#*', 'TENANT#*#OPEN', 'TENANT#*#LEASE']),
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

    // Triggers (docs/triggers.md), only when the stage file maps some: an EventBridge rule on CloudWatch alarms that
    // enter ALARM invokes the Trigger function; webhook mappings add `POST /triggers/{source}`, the only route not
    // behind IAM (each sender's bearer token or signature is its authentication; the secrets are SST secrets). Both
    // may touch only run, open-runs (admission), incident and webhook-event items, and start only this workflow.
    const triggerFunctions: Record<string, { name: $util.Output<string> }> = {};
    const triggerQueues: { deadLetterQueueName?: $util.Output<string> } = {};
    if (stageConfig.triggers.length > 0) {
      const triggerEnvironment: Record<string, $util.Input<string>> = {
        DIAGNOSIS_TABLE_NAME: table.name,
        DIAGNOSIS_WORKFLOW_ARN: workflow.arn,
        TRIGGERS: JSON.stringify(stageConfig.triggers),
        DIAGNOSIS_TIMEZONE: settings.DIAGNOSIS_TIMEZONE,
        TRIGGER_QUIET_PERIOD_SECONDS: String(settings.TRIGGER_QUIET_PERIOD_SECONDS),
        TRIGGER_LOOKBACK_MINUTES: String(settings.TRIGGER_LOOKBACK_MINUTES),
        TENANT_MAX_OPEN_RUNS: String(settings.TENANT_MAX_OPEN_RUNS),
        RETENTION_DAYS: String(settings.RETENTION_DAYS),
        ...(environment.DIAGNOSIS_MAX_QUERY_BYTES === undefined
          ? {}
          : { DIAGNOSIS_MAX_QUERY_BYTES: environment.DIAGNOSIS_MAX_QUERY_BYTES }),
        // The sender's texts (question, title) are masked with the runs' own masking (issue 32, item 10).
        ...Object.fromEntries(
          ['MASKING', 'MASKING_PATTERNS', 'MASKING_EXCLUSIONS', 'REASONING_RETENTION_DAYS', 'PSEUDONYM_RETENTION_DAYS']
            .filter((key) => environment[key] !== undefined)
            .map((key) => [key, environment[key]]),
        ),
      };
      const triggerPermissions: sst.aws.FunctionPermissionArgs[] = [
        tableGrant(
          ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'Query'],
          ['RUN#*', 'TENANT#*#OPEN', 'INCIDENT#*', 'WEBHOOK#*'],
        ),
        // NOTE: a new run's pseudonym map (its question's values), put only: a trigger never reads a map.
        tableGrant(['PutItem'], ['PSEUDONYMS#*']),
        { actions: ['states:StartExecution'], resources: [workflow.arn] },
        ...keyUse(['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey*']),
      ];
      const triggerFunction = (name: 'Trigger' | 'TriggerWebhook', link: sst.aws.FunctionArgs['link']) =>
        new sst.aws.Function(name, {
          ...functionCode(name, $cli.paths.root),
          runtime: 'nodejs24.x',
          architecture: 'arm64',
          timeout: '30 seconds',
          memory: '256 MB',
          // NOTE: the webhook route is public (signed, not IAM): a flood of requests gets its own reserved share.
          concurrency: { reserved: stageConfig.reservedConcurrency.api },
          link,
          environment: triggerEnvironment,
          permissions: triggerPermissions,
        });
      // NOTE: EventBridge invokes Trigger asynchronously; an event whose run could not be started is thrown, so Lambda
      // tries it twice more, then sends it to TriggerDeadLetters (kept 14 days, alarmed on its depth) instead of
      // dropping it: an alarm that should have started a diagnosis is never lost silently.
      const triggerDeadLetters = new sst.aws.Queue('TriggerDeadLetters', {
        transform: { queue: { messageRetentionSeconds: 14 * 24 * 3600 } },
      });
      triggerPermissions.push({ actions: ['sqs:SendMessage'], resources: [triggerDeadLetters.arn] });
      const trigger = triggerFunction('Trigger', [maskingKey]);
      triggerFunctions.Trigger = trigger;
      new aws.lambda.FunctionEventInvokeConfig('TriggerInvokeConfig', {
        functionName: trigger.name,
        maximumRetryAttempts: 2,
        maximumEventAgeInSeconds: 3600,
        destinationConfig: { onFailure: { destination: triggerDeadLetters.arn } },
      });
      triggerQueues.deadLetterQueueName = triggerDeadLetters.nodes.queue.name;
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
      if (stageConfig.triggers.some((mapping) => mapping.source !== 'cloudwatch')) {
        // "none": that source's route refuses every request until the secret is set (`sst secret set …`).
        const alertmanagerToken = new sst.Secret('AlertmanagerWebhookToken', 'none');
        const pagerdutySecrets = new sst.Secret('PagerDutyWebhookSecrets', 'none');
        // NOTE: a mapping's own credential (its `secret`): only that mapping is reached with it (docs/triggers.md).
        const mappingSecrets = stageConfig.webhookSecrets.map((name) => new sst.Secret(name, 'none'));
        const webhook = triggerFunction('TriggerWebhook', [
          alertmanagerToken,
          pagerdutySecrets,
          ...mappingSecrets,
          maskingKey,
        ]);
        triggerFunctions.TriggerWebhook = webhook;
        // NOTE: on the IngressApi, no `auth`: the senders cannot sign AWS requests; the function checks each one's own
        // credential.
        ingressRoute('POST /triggers/{source}', webhook.arn);
      }
    }

    // What changed (docs/changes.md), only when the stage file maps change sources: `POST /changes/{source}` on the
    // IngressApi → ChangeWebhook (change webhooks, GitHub `deployment_status`; each source's own secret), and an
    // EventBridge rule on CloudTrail write calls of the mapped accounts → ChangeEvents. Both may only put items of the
    // enterprises' change partitions (CHANGES#*); Diagnose reads them through `query_logs` (service `changes`).
    const changeFunctions: Record<string, { name: $util.Output<string> }> = {};
    const changeSources = stageConfig.changes.sources;
    if (changeSources.length > 0) {
      const { CHANGE_PARTITIONS, changeSecretNames, cloudTrailRulePattern, hasChangeWebhooks } = await import(
        './deploy/changes.ts'
      );
      const changeFunction = (name: 'ChangeWebhook' | 'ChangeEvents', link: sst.Secret[]) =>
        new sst.aws.Function(name, {
          ...functionCode(name, $cli.paths.root),
          runtime: 'nodejs24.x',
          architecture: 'arm64',
          timeout: '10 seconds',
          memory: '256 MB',
          concurrency: { reserved: stageConfig.reservedConcurrency.api },
          link,
          environment: {
            DIAGNOSIS_TABLE_NAME: table.name,
            CHANGE_SOURCES: JSON.stringify(changeSources),
            CHANGE_RETENTION_DAYS: String(settings.CHANGE_RETENTION_DAYS),
          },
          permissions: [
            tableGrant(['PutItem'], [...CHANGE_PARTITIONS]),
            ...keyUse(['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey*']),
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
    }

    // The Slack apps (docs/chat.md), only when the stage file has some: `POST /slack/{appId}/{kind}` on the IngressApi
    // (not behind IAM: Slack's signature is the authentication) → SlackRequests acknowledges within 3 s and queues the work on
    // SlackWorkQueue → SlackWork starts runs and follow-ups, records ratings and keeps each run's card up to date
    // from the table's stream. Each app's bot token and signing secret are SST secrets named in the stage file.
    const slackFunctions: Record<string, { name: $util.Output<string> }> = {};
    if (stageConfig.slack.apps.length > 0) {
      const { slackSecretNames, SLACK_CARD_STREAM_FILTERS } = await import('./deploy/slack.ts');
      const slackSecrets = slackSecretNames(stageConfig.slack).map((name) => new sst.Secret(name));
      const slackDeadLetters = new sst.aws.Queue('SlackWorkDeadLetters', {
        transform: { queue: { messageRetentionSeconds: 14 * 24 * 3600 } },
      });
      const slackQueue = new sst.aws.Queue('SlackWorkQueue', {
        dlq: { queue: slackDeadLetters.arn, retry: 5 },
        visibilityTimeout: '60 seconds',
      });
      const slackEnvironment = {
        DIAGNOSIS_TABLE_NAME: table.name,
        SLACK_APPS: JSON.stringify(stageConfig.slack.apps),
        SLACK_QUEUE_URL: slackQueue.url,
      };
      const slackRequests = new sst.aws.Function('SlackRequests', {
        ...functionCode('SlackRequests', $cli.paths.root),
        runtime: 'nodejs24.x',
        architecture: 'arm64',
        timeout: '10 seconds',
        memory: '256 MB',
        concurrency: { reserved: stageConfig.reservedConcurrency.api },
        link: slackSecrets,
        environment: slackEnvironment,
        permissions: [
          // It claims each signed request once (SLACKREQ#…) and queues the work; it reads nothing else.
          tableGrant(['PutItem'], ['SLACKREQ#*']),
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
        link: [...slackSecrets, maskingKey],
        environment: {
          ...slackEnvironment,
          DIAGNOSIS_WORKFLOW_ARN: workflow.arn,
          DIAGNOSIS_API_URL: api.url,
          TENANT_MAX_OPEN_RUNS: String(settings.TENANT_MAX_OPEN_RUNS),
          RETENTION_DAYS: String(settings.RETENTION_DAYS),
          MASKING: settings.MASKING,
          ...(environment.DIAGNOSIS_MAX_QUERY_BYTES === undefined
            ? {}
            : { DIAGNOSIS_MAX_QUERY_BYTES: environment.DIAGNOSIS_MAX_QUERY_BYTES }),
          // The rating's settings, as RunFeedback gets them (the masking's patterns, the retentions).
          ...ratingEnvironment,
        },
        permissions: [
          // Runs (admission included) as the triggers start them; its own cards; ratings as RunFeedback records them.
          tableGrant(
            ['GetItem', 'PutItem', 'UpdateItem', 'Query'],
            ['RUN#*', 'TENANT#*#OPEN', 'FEEDBACK#*', 'PSEUDONYMS#*', 'SLACKCARD#*', 'SLACKMSG#*'],
          ),
          ...ratingGrants,
          { actions: ['states:StartExecution'], resources: [workflow.arn] },
          {
            actions: ['sqs:SendMessage', 'sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'],
            resources: [slackQueue.arn],
          },
          ...keyUse(['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey*']),
        ],
      });
      slackQueue.subscribe(slackWork.arn, { batch: { size: 10, partialResponses: true } });
      table.subscribe('SlackCards', slackWork.arn, {
        filters: [...SLACK_CARD_STREAM_FILTERS],
        transform: {
          eventSourceMapping: (args) => {
            args.functionResponseTypes = ['ReportBatchItemFailures'];
            args.bisectBatchOnFunctionError = true;
            args.maximumRetryAttempts = 3;
            args.maximumBatchingWindowInSeconds = 2;
          },
        },
      });
      slackFunctions.SlackRequests = slackRequests;
      slackFunctions.SlackWork = slackWork;
    }

    // Every ingress route is created: the IngressApi's stage may now name them (see above).
    ingressRoutesCreated();

    // Alarms and a dashboard on what the functions emit and what AWS measures of them, built as data by
    // deploy/alarms.ts (thresholds: the stage file's `alarms`); every alarm notifies this topic, firing and recovering.
    const { buildAlarmDefinitions } = await import('./deploy/alarms.ts');
    const { buildDashboardBody } = await import('./deploy/dashboard.ts');
    const alarmTopic = new sst.aws.SnsTopic('Alarms');
    if (stageConfig.alarms.email !== undefined) {
      new aws.sns.TopicSubscription('AlarmsEmail', {
        topic: alarmTopic.arn,
        protocol: 'email',
        endpoint: stageConfig.alarms.email,
      });
    }
    const monitored = {
      region,
      functions: Object.entries({
        Diagnose: diagnose,
        StartDiagnosis: startDiagnosis,
        CancelRun: cancelRun,
        GetRun: getRun,
        GetRunAudit: getRunAudit,
        GetRunReasoning: getRunReasoning,
        GetRunReveal: getRunReveal,
        RunFeedback: runFeedback,
        PastIncidents: pastIncidents,
        OnWorkflowStopped: onWorkflowStopped,
        OnRunFinished: onRunFinished,
        DeliverResults: deliverResults,
        SweepRuns: sweepRuns,
        ...triggerFunctions,
        ...slackFunctions,
        ...changeFunctions,
      }).map(([id, fn]) => ({ id, name: fn.name })),
      runFunctionId: 'Diagnose',
      tableName: table.name,
      globalIndexNames: Object.keys(globalIndexes),
      stateMachines: [
        { id: 'DiagnosisWorkflow', arn: workflow.arn },
        { id: 'DiagnosisBatch', arn: batch.arn },
      ],
      apiId: api.nodes.api.id,
      ingressApiId: ingress.nodes.api.id,
      topicArn: alarmTopic.arn,
      triggers: stageConfig.triggers.length > 0,
      ...(triggerQueues.deadLetterQueueName === undefined
        ? {}
        : { triggerDeadLetters: { queueName: triggerQueues.deadLetterQueueName } }),
      delivery: { queueName: deliveryQueue.nodes.queue.name, deadLetterQueueName: deadLetters.nodes.queue.name },
    };
    for (const alarm of buildAlarmDefinitions(monitored, stageConfig.alarms)) {
      new aws.cloudwatch.MetricAlarm(alarm.id, { name: `${$app.name}-${$app.stage}-${alarm.id}`, ...alarm.args });
    }
    const dashboardName = `${$app.name}-${$app.stage}`;
    new aws.cloudwatch.Dashboard('Dashboard', {
      dashboardName,
      dashboardBody: $jsonStringify(buildDashboardBody(monitored, stageConfig.alarms)),
    });

    return {
      api: api.url,
      // What Slack's app manifest and the webhook senders are given (docs/chat.md, docs/triggers.md).
      ingress: ingress.url,
      table: table.name,
      workflow: workflow.arn,
      batch: batch.arn,
      batchInput: batchInput.name,
      alarmTopic: alarmTopic.arn,
      resultsBus: resultsBus.name,
      deliveryDeadLetters: deadLetters.url,
      dashboard: $interpolate`https://${region}.console.aws.amazon.com/cloudwatch/home?region=${region}#dashboards/dashboard/${dashboardName}`,
    };
  },
});
