// NOTE: over 300 lines on purpose: the deployment's wiring run once per stage file under the stand-in platform
// (test/support/fake-sst-platform.ts); each describe is one stage file's deployment.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  FAKE_ACCOUNT,
  FAKE_REGION,
  type FakePlatform,
  installFakeSstPlatform,
  resolveOutputs,
} from '../../support/fake-sst-platform.ts';

/**
 * `sst.config.ts`'s real `run()`, against a recording stand-in of SST's globals: what the deploy would create, from a
 * stage file, without AWS. NOTE: imported by a computed path so `tsc -p tsconfig.json` does not type-check the config
 * against SST's platform types (`npm run typecheck` does that with tsconfig.sst.json).
 */
const CONFIG = resolve(import.meta.dirname, '../../../sst.config.ts');
type SstConfig = { default: { run(): Promise<Record<string, unknown>> } };

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

/** An app root holding `deploy/<stage>.json` with `stageFile` (none when undefined) and a catalog of its own. */
function appRoot(stage: string, stageFile: unknown): string {
  const root = mkdtempSync(join(tmpdir(), 'sst-config-'));
  roots.push(root);
  mkdirSync(join(root, 'deploy'));
  mkdirSync(join(root, 'ops'));
  mkdirSync(join(root, 'examples/mysql'), { recursive: true });
  writeFileSync(join(root, 'ops/catalog.json'), '[]');
  writeFileSync(join(root, 'examples/mysql/catalog.json'), '[]');
  // The deploy runs `npm run build:functions` in the app root first; here a stand-in that only leaves a mark.
  writeFileSync(
    join(root, 'package.json'),
    JSON.stringify({ scripts: { 'build:functions': "node -e \"require('fs').writeFileSync('built', '')\"" } }),
  );
  if (stageFile !== undefined) writeFileSync(join(root, 'deploy', `${stage}.json`), JSON.stringify(stageFile));
  return root;
}

const production = {
  settings: {
    KNOWLEDGE_BACKEND: 'bedrock',
    BEDROCK_KNOWLEDGE_BASE_ID: 'KB12345678',
    LOGS_BACKEND: 'cloudwatch',
    LOGS_GROUPS: { 'order-service': ['/ecs/order'], 'payment-gateway': ['/ecs/payment'] },
    MYSQL_CATALOG_PATH: 'ops/catalog.json',
    TENANT_ACCESS: [{ principal: FAKE_ACCOUNT, enterprises: ['E1001'] }],
  },
  batchMaxConcurrency: 8,
  reservedConcurrency: { Diagnose: 40, api: 6 },
  alarms: { email: 'oncall@example.com' },
};

async function runConfig(
  stage: string,
  stageFile: unknown,
): Promise<{ platform: FakePlatform; outputs: unknown; root: string }> {
  const root = appRoot(stage, stageFile);
  const platform = installFakeSstPlatform(stage, root);
  const config = (await import(/* @vite-ignore */ CONFIG)) as SstConfig;
  const outputs = resolveOutputs(await config.default.run());
  return { platform, outputs, root };
}

describe('sst.config.ts on prod with a stage file of its own', async () => {
  // The deploying shell says otherwise; the stage file wins and the shell is ignored.
  const shell = { LOGS_BACKEND: 'local', KNOWLEDGE_DIR: 'examples/knowledge', BATCH_MAX_CONCURRENCY: '99' };
  const saved = Object.fromEntries(Object.keys(shell).map((key) => [key, process.env[key]]));
  Object.assign(process.env, shell);
  let result: Awaited<ReturnType<typeof runConfig>>;
  try {
    result = await runConfig('prod', production);
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
  const { platform, outputs, root } = result;
  const functions = platform.ofType('sst.aws.Function');
  const alarms = platform.ofType('aws.cloudwatch.MetricAlarm');
  const diagnose = functions.find((fn) => fn.name === 'Diagnose');
  const topic = `arn:aws:sns:${FAKE_REGION}:${FAKE_ACCOUNT}:diagnosis-agent-prod-Alarms`;

  it('builds the functions in the app root first and deploys each from its own build folder, not SST’s build', () => {
    expect(existsSync(join(root, 'built'))).toBe(true);
    expect(functions.map((fn) => [fn.name, fn.args.bundle, fn.args.nodejs])).toEqual(
      functions.map((fn) => [fn.name, join(root, '.data/build/functions', fn.name), undefined]),
    );
    expect(diagnose?.args.handler).toBe('diagnose.handler');
  });

  it('gives the functions the stage file’s settings, not the shell’s', () => {
    const environment = diagnose?.args.environment as Record<string, string>;
    expect(environment.LOGS_BACKEND).toBe('cloudwatch');
    expect(environment.KNOWLEDGE_BACKEND).toBe('bedrock');
    expect(environment.KNOWLEDGE_DIR).toBeUndefined();
    expect(environment.TENANT_ACCESS).toBe(`[{"principal":"${FAKE_ACCOUNT}","enterprises":["E1001"]}]`);
    expect(environment.SEMANTIC_GUARD).toBe('enforce');
    const batch = platform.ofType('aws.sfn.StateMachine').find((machine) => machine.name === 'DiagnosisBatch');
    expect(String(batch?.args.definition)).toContain('"MaxConcurrency":8');
    // Every function that serves a caller enforces the same tenant access policy (the event-driven ones serve none).
    const policies = functions
      .filter((fn) => !['OnWorkflowStopped', 'SweepRuns', 'OnRunFinished', 'DeliverResults'].includes(fn.name))
      .map((fn) => [fn.name, (fn.args.environment as Record<string, string>).TENANT_ACCESS]);
    expect(policies).toEqual(policies.map(([name]) => [name, environment.TENANT_ACCESS]));
    expect(policies).toHaveLength(9);
  });

  it('reserves the stage file’s concurrency for Diagnose and for every API function', () => {
    const reserved = Object.fromEntries(
      functions.map((fn) => [fn.name, (fn.args.concurrency as { reserved?: number } | undefined)?.reserved]),
    );
    expect(reserved).toEqual({
      Diagnose: 40,
      GetRun: 6,
      GetRunAudit: 6,
      GetRunReasoning: 6,
      GetRunReveal: 6,
      StartDiagnosis: 6,
      CancelRun: 6,
      RunFeedback: 6,
      PastIncidents: 6,
      OnWorkflowStopped: undefined,
      SweepRuns: undefined,
      OnRunFinished: undefined,
      DeliverResults: undefined,
    });
  });

  it('lets StartDiagnosis start the workflow and read its executions, CancelRun stop them, and nothing more', () => {
    const statesPermissions = (name: string) =>
      (
        (functions.find((fn) => fn.name === name)?.args.permissions ?? []) as {
          actions: string[];
          resources: string[];
        }[]
      )
        .filter((permission) => permission.actions.some((action) => action.startsWith('states:')))
        .map((permission) => [permission.actions, permission.resources]);
    // NOTE: the stand-in platform's state machine ARN has no `:stateMachine:` part; the executions' is that plus `:*`.
    const machine = `arn:aws:states:${FAKE_REGION}:${FAKE_ACCOUNT}:diagnosis-agent-prod-DiagnosisWorkflow`;
    expect(statesPermissions('StartDiagnosis')).toEqual([
      [['states:StartExecution'], [machine]],
      [['states:DescribeExecution'], [`${machine}:*`]],
    ]);
    expect(statesPermissions('CancelRun')).toEqual([[['states:StopExecution'], [`${machine}:*`]]]);
  });

  it('lets the feedback function read run items, write feedback items, add to pseudonym maps and keep past incidents only, and GetRun read feedback and past incidents', () => {
    const feedback = functions.find((fn) => fn.name === 'RunFeedback');
    const tablePermissions = (fn: (typeof functions)[number] | undefined) =>
      ((fn?.args.permissions ?? []) as { actions: string[]; conditions?: { values: string[] }[] }[])
        .filter((permission) => permission.actions.some((action) => action.startsWith('dynamodb:')))
        .map((permission) => [permission.actions, permission.conditions?.[0]?.values]);
    expect(tablePermissions(feedback)).toEqual([
      [['dynamodb:GetItem'], ['RUN#*']],
      [
        ['dynamodb:Query', 'dynamodb:PutItem'],
        ['FEEDBACK#*', 'PSEUDONYMS#*'],
      ],
      [['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem', 'dynamodb:ConditionCheckItem'], ['PAST#*']],
    ]);
    expect(tablePermissions(functions.find((fn) => fn.name === 'GetRun'))).toEqual([
      [
        ['dynamodb:GetItem', 'dynamodb:Query'],
        ['RUN#*', 'DELIVERY#*', 'FEEDBACK#*', 'PAST#*'],
      ],
    ]);
    // The past-incident route reaches PAST#* items only: no run, audit, reasoning or pseudonym partition.
    expect(tablePermissions(functions.find((fn) => fn.name === 'PastIncidents'))).toEqual([
      [
        [
          'dynamodb:GetItem',
          'dynamodb:Query',
          'dynamodb:PutItem',
          'dynamodb:DeleteItem',
          'dynamodb:ConditionCheckItem',
        ],
        ['PAST#*'],
      ],
    ]);
    expect(platform.ofType('sst.aws.ApiGatewayV2').length).toBeGreaterThan(0);
  });

  it('lets the functions that close other runs read a run’s audit (its scorecard), and the API writers not', () => {
    const tableActions = (name: string) =>
      ((functions.find((fn) => fn.name === name)?.args.permissions ?? []) as { actions: string[] }[]).flatMap(
        (permission) => permission.actions.filter((action) => action.startsWith('dynamodb:')),
      );
    expect(tableActions('OnWorkflowStopped')).toEqual(['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:Query']);
    expect(tableActions('SweepRuns')).toContain('dynamodb:Query');
    // They close QUEUED runs only, which never ran: no audit to read.
    expect(tableActions('StartDiagnosis')).not.toContain('dynamodb:Query');
    expect(tableActions('CancelRun')).not.toContain('dynamodb:Query');
  });

  it('sends the events of both workflows’ executions, batch children included, to OnWorkflowStopped, and sweeps every 5 minutes', () => {
    const rules = platform.ofType('aws.cloudwatch.EventRule');
    const stopped = JSON.parse(
      String(rules.find((rule) => rule.name === 'DiagnosisWorkflowStopped')?.args.eventPattern),
    );
    const machines = stopped.detail.stateMachineArn as unknown[];
    const batch = platform.ofType('aws.sfn.StateMachine').find((machine) => machine.name === 'DiagnosisBatch');
    expect(machines).toHaveLength(3);
    expect(machines).toContainEqual({ prefix: expect.stringMatching(/DiagnosisBatch\/$/) });
    expect(JSON.stringify(batch?.args)).toContain('DiagnosisBatch');
    expect(rules.find((rule) => rule.name === 'SweepRunsSchedule')?.args).toMatchObject({
      scheduleExpression: 'rate(5 minutes)',
    });
    const sweeper = functions.find((fn) => fn.name === 'SweepRuns');
    expect((sweeper?.args.environment as Record<string, string> | undefined)?.FLUSH_RESERVE_MS).toBe('3000');
    // The start and cancel functions reach the admission items, nothing else of the enterprise.
    const start = functions.find((fn) => fn.name === 'StartDiagnosis');
    expect(JSON.stringify(start?.args.permissions)).toContain('TENANT#*#OPEN');
    expect((start?.args.environment as Record<string, string> | undefined)?.TENANT_MAX_OPEN_RUNS).toBe('20');
  });

  it('grants StartQuery on the configured log groups only, and Retrieve on the configured knowledge base', () => {
    const permissions = diagnose?.args.permissions as { actions: string[]; resources: string[] }[];
    const logs = permissions.filter((permission) => permission.actions.some((action) => action.startsWith('logs:')));
    const group = (name: string) => `arn:aws:logs:${FAKE_REGION}:${FAKE_ACCOUNT}:log-group:${name}`;
    expect(logs).toEqual([
      {
        actions: ['logs:StartQuery'],
        resources: [group('/ecs/order'), group('/ecs/order:*'), group('/ecs/payment'), group('/ecs/payment:*')],
      },
      { actions: ['logs:GetQueryResults', 'logs:StopQuery'], resources: ['*'] },
    ]);
    expect(permissions).toContainEqual({
      actions: ['bedrock:Retrieve'],
      resources: [`arn:aws:bedrock:${FAKE_REGION}:${FAKE_ACCOUNT}:knowledge-base/KB12345678`],
    });
    expect(diagnose?.args.copyFiles).toEqual([{ from: 'ops/catalog.json' }]);
  });

  it('keeps the pseudonym map to the reveal function alone: its own partition, route and the masking secret', () => {
    const partitionsOf = (name: string) => {
      const fn = functions.find((candidate) => candidate.name === name);
      const permissions = fn?.args.permissions as { actions: string[]; conditions?: { values: string[] }[] }[];
      return permissions
        .filter((permission) => permission.actions.some((action) => action.startsWith('dynamodb:')))
        .flatMap((permission) => permission.conditions?.flatMap((condition) => condition.values) ?? []);
    };
    expect(partitionsOf('GetRunReveal')).toEqual(['RUN#*', 'PSEUDONYMS#*']);
    for (const name of [
      'GetRun',
      'GetRunAudit',
      'GetRunReasoning',
      'StartDiagnosis',
      'CancelRun',
      'OnWorkflowStopped',
      'SweepRuns',
    ]) {
      expect(partitionsOf(name), name).not.toContain('PSEUDONYMS#*');
    }
    const linksMaskingKey = functions
      .filter((fn) =>
        (fn.args.link as { name?: unknown }[] | undefined)?.some((link) => String(link.name).includes('MaskingKey')),
      )
      .map((fn) => fn.name);
    // Issue 24: the feedback function masks a rating with its run's pseudonyms (it reads and adds to the map).
    expect(linksMaskingKey.sort()).toEqual(['Diagnose', 'GetRunReveal', 'RunFeedback']);
    expect(partitionsOf('RunFeedback')).toEqual(['RUN#*', 'FEEDBACK#*', 'PSEUDONYMS#*', 'PAST#*']);
    // Issue 23: the judge's own key reaches the one function that runs the judge.
    const linksJudgeKey = functions
      .filter((fn) =>
        (fn.args.link as { name?: unknown }[] | undefined)?.some((link) => String(link.name).includes('JudgeApiKey')),
      )
      .map((fn) => fn.name);
    expect(linksJudgeKey).toEqual(['Diagnose']);
    const reveal = platform.routes.find((route) => route.route === 'GET /runs/{runId}/reveal');
    expect(reveal?.args).toEqual({ auth: { iam: true } });
  });

  it('creates an errors and a throttles alarm for every function it creates, on that function’s name', () => {
    expect(functions.length).toBe(13);
    for (const fn of functions) {
      for (const metricName of ['Errors', 'Throttles']) {
        const watching = alarms.filter((alarm) =>
          (alarm.args.metricQueries as { metric?: { metricName: string; dimensions: Record<string, string> } }[]).some(
            (query) =>
              query.metric?.metricName === metricName &&
              query.metric.dimensions.FunctionName === `diagnosis-agent-prod-${fn.name}`,
          ),
        );
        expect(
          watching.map((alarm) => alarm.name),
          `${fn.name} ${metricName}`,
        ).toEqual([`Alarm${fn.name}${metricName}`]);
      }
    }
  });

  it('points every alarm at the topic, subscribes the stage file’s address, and outputs both by name', () => {
    expect(alarms.length).toBeGreaterThan(2 * functions.length);
    for (const alarm of alarms) {
      expect(alarm.args.alarmActions).toEqual([topic]);
      expect(alarm.args.okActions).toEqual([topic]);
      expect(alarm.args.name).toBe(`diagnosis-agent-prod-${alarm.name}`);
    }
    expect(platform.ofType('aws.sns.TopicSubscription').map((subscription) => subscription.args)).toEqual([
      { topic, protocol: 'email', endpoint: 'oncall@example.com' },
    ]);
    expect(outputs).toMatchObject({
      alarmTopic: topic,
      dashboard: `https://${FAKE_REGION}.console.aws.amazon.com/cloudwatch/home?region=${FAKE_REGION}#dashboards/dashboard/diagnosis-agent-prod`,
      api: expect.stringContaining('execute-api'),
      workflow: expect.stringContaining(':states:'),
    });
  });

  it('creates one dashboard whose body is JSON naming every function', () => {
    const [dashboard] = platform.ofType('aws.cloudwatch.Dashboard');
    const body = JSON.parse(String(dashboard?.args.dashboardBody)) as { widgets: unknown[] };
    expect(body.widgets.length).toBeGreaterThan(5);
    for (const fn of functions) expect(JSON.stringify(body)).toContain(`diagnosis-agent-prod-${fn.name}`);
  });
});

describe('sst.config.ts refusing to deploy prod', () => {
  it('without a deploy/prod.json of its own', async () => {
    await expect(runConfig('prod', undefined)).rejects.toThrow('stage prod has no deploy/prod.json');
  });

  it('with the example world, naming the setting that would allow it', async () => {
    await expect(runConfig('prod', { settings: {} })).rejects.toThrow(
      /example world as production evidence: KNOWLEDGE_DIR=examples\/knowledge.*"allowExampleEvidence": true/,
    );
  });

  it('without TENANT_ACCESS, naming it', async () => {
    const { TENANT_ACCESS: _, ...settings } = production.settings;
    await expect(runConfig('prod', { ...production, settings })).rejects.toThrow(
      'deploy/prod.json: TENANT_ACCESS is not set',
    );
  });

  it('with reserved concurrency out of bounds, naming the key', async () => {
    await expect(runConfig('prod', { ...production, reservedConcurrency: { Diagnose: 0, api: 6 } })).rejects.toThrow(
      'deploy/prod.json: invalid or unknown keys: reservedConcurrency.Diagnose',
    );
  });

  it('with a setting the functions would refuse, naming it', async () => {
    await expect(
      runConfig('prod', { ...production, settings: { ...production.settings, LOGS_GROUPS: { x: ['*'] } } }),
    ).rejects.toThrow('deploy/prod.json: settings the functions would refuse: LOGS_GROUPS');
  });
});

describe('sst.config.ts wiring the delivery of results', async () => {
  const delivery = {
    destinations: {
      E1001: [
        { id: 'oncall', type: 'slack', secret: 'DestinationSlackE1001' },
        { id: 'ops-mail', type: 'sns', emails: ['ops@example.com'] },
        {
          id: 'itsm',
          type: 'webhook',
          url: 'https://itsm.example.com/hooks/diagnosis',
          secret: 'DestinationHookE1001',
        },
      ],
      E2002: [{ id: 'oncall', type: 'slack', secret: 'DestinationSlackE2002' }],
    },
    price: { input: 0.28, cachedInput: 0.028, output: 0.42 },
  };
  const { platform, outputs } = await runConfig('prod', { ...production, delivery });
  const functions = platform.ofType('sst.aws.Function');
  const byName = (name: string) => functions.find((fn) => fn.name === name);
  const arn = (service: string, name: string) =>
    `arn:aws:${service}:${FAKE_REGION}:${FAKE_ACCOUNT}:diagnosis-agent-prod-${name}`;

  it('streams the table (new and old images) into OnRunFinished, filtered to runs that end, with retries and the DLQ', () => {
    const [table] = platform.ofType('sst.aws.Dynamo');
    expect(table?.args.stream).toBe('new-and-old-images');
    const stream = platform.subscriptions.find((entry) => entry.source === 'DiagnosisTable');
    expect(stream?.args[0]).toBe('RunFinished');
    expect(resolveOutputs(stream?.args[1])).toBe(arn('lambda', 'OnRunFinished'));
    const options = stream?.args[2] as {
      filters: unknown[];
      transform: { eventSourceMapping: (args: Record<string, unknown>) => void };
    };
    expect(options.filters).toEqual([
      {
        eventName: ['MODIFY'],
        dynamodb: {
          Keys: { sk: { S: ['RUN'] } },
          OldImage: { status: { S: ['QUEUED', 'RUNNING'] } },
          NewImage: { status: { S: ['SUCCEEDED', 'FALLBACK', 'FAILED', 'CANCELLED'] } },
        },
      },
    ]);
    const mapping: Record<string, unknown> = {};
    options.transform.eventSourceMapping(mapping);
    expect(resolveOutputs(mapping)).toEqual({
      functionResponseTypes: ['ReportBatchItemFailures'],
      bisectBatchOnFunctionError: true,
      maximumRetryAttempts: 10,
      destinationConfig: { onFailure: { destinationArn: arn('sqs', 'DeliveryDeadLetters') } },
    });
    expect(byName('OnRunFinished')?.args.environment).toMatchObject({
      DIAGNOSIS_RESULTS_BUS: 'diagnosis-agent-prod-DiagnosisResults',
      DELIVERY_PRICE: JSON.stringify(delivery.price),
    });
    expect(byName('OnRunFinished')?.args.permissions).toContainEqual({
      actions: ['events:PutEvents'],
      resources: [arn('events', 'DiagnosisResults')],
    });
  });

  it('keeps the delivery records as long as the runs: DeliverResults gets the stage file’s RETENTION_DAYS', async () => {
    expect(byName('DeliverResults')?.args.environment).toMatchObject({ RETENTION_DAYS: '90' });
    const kept = await runConfig('prod', { ...production, settings: { ...production.settings, RETENTION_DAYS: 30 } });
    const deliver = kept.platform.ofType('sst.aws.Function').find((fn) => fn.name === 'DeliverResults');
    expect(deliver?.args.environment).toMatchObject({ RETENTION_DAYS: '30' });
  });

  it('routes the bus to the delivery queue (5 receives, then the dead-letter queue) and the queue to DeliverResults', () => {
    const queues = platform.ofType('sst.aws.Queue');
    expect(queues.find((queue) => queue.name === 'DeliveryQueue')?.args).toEqual({
      visibilityTimeout: '3 minutes',
      dlq: { queue: arn('sqs', 'DeliveryDeadLetters'), retry: 5 },
    });
    const rule = platform.subscriptions.find((entry) => entry.source === 'DiagnosisResults');
    expect(rule?.method).toBe('subscribeQueue');
    expect(rule?.args[2]).toEqual({ pattern: { source: ['diagnosis-agent'], detailType: ['Diagnosis Run Finished'] } });
    const consumer = platform.subscriptions.find((entry) => entry.source === 'DeliveryQueue');
    expect(resolveOutputs(consumer?.args)).toEqual([
      arn('lambda', 'DeliverResults'),
      { batch: { size: 10, partialResponses: true } },
    ]);
  });

  it('gives DeliverResults the destinations by enterprise, secrets by name only, one SNS topic per SNS destination', () => {
    const deliver = byName('DeliverResults');
    const environment = deliver?.args.environment as Record<string, string>;
    expect(JSON.parse(environment.DELIVERY_DESTINATIONS ?? '')).toEqual({
      E1001: [
        { id: 'oncall', type: 'slack', secret: 'DestinationSlackE1001' },
        { id: 'ops-mail', type: 'sns', topicArn: arn('sns', 'DeliveryE1001OpsMail') },
        {
          id: 'itsm',
          type: 'webhook',
          url: 'https://itsm.example.com/hooks/diagnosis',
          secret: 'DestinationHookE1001',
        },
      ],
      E2002: [{ id: 'oncall', type: 'slack', secret: 'DestinationSlackE2002' }],
    });
    expect(platform.ofType('sst.Secret').map((secret) => secret.name)).toEqual([
      'ModelApiKey',
      // Issue 23: the judge's own key ("none" by default: the judge uses ModelApiKey), linked to Diagnose only.
      'JudgeApiKey',
      // Issue 22: the masking secret (linked to Diagnose and GetRunReveal only, checked above).
      'MaskingKey',
      'MysqlUrl',
      'DestinationHookE1001',
      'DestinationSlackE1001',
      'DestinationSlackE2002',
    ]);
    expect(deliver?.args.link).toHaveLength(3);
    expect(
      platform
        .ofType('sst.aws.SnsTopic')
        .map((topic) => topic.name)
        .sort(),
    ).toEqual(['Alarms', 'DeliveryE1001OpsMail']);
    expect(platform.ofType('aws.sns.TopicSubscription').map((subscription) => subscription.args)).toContainEqual({
      topic: arn('sns', 'DeliveryE1001OpsMail'),
      protocol: 'email',
      endpoint: 'ops@example.com',
    });
    const permissions = deliver?.args.permissions as { actions: string[]; conditions?: unknown }[];
    expect(permissions).toContainEqual({ actions: ['sns:Publish'], resources: [arn('sns', 'DeliveryE1001OpsMail')] });
    // It may read run items and write only its own delivery records.
    expect(
      permissions.filter((permission) => permission.actions.some((action) => action.startsWith('dynamodb:'))),
    ).toEqual([
      {
        actions: ['dynamodb:GetItem'],
        resources: [arn('dynamodb', 'DiagnosisTable')],
        conditions: [{ test: 'ForAllValues:StringLike', variable: 'dynamodb:LeadingKeys', values: ['RUN#*'] }],
      },
      {
        actions: ['dynamodb:UpdateItem', 'dynamodb:Query'],
        resources: [arn('dynamodb', 'DiagnosisTable')],
        conditions: [{ test: 'ForAllValues:StringLike', variable: 'dynamodb:LeadingKeys', values: ['DELIVERY#*'] }],
      },
    ]);
    // GET /runs/{id} may read the delivery records beside the run.
    const getRun = byName('GetRun')?.args.permissions as { conditions?: { values: string[] }[] }[];
    expect(getRun[0]?.conditions?.[0]?.values).toEqual(['RUN#*', 'DELIVERY#*', 'FEEDBACK#*', 'PAST#*']);
    expect(outputs).toMatchObject({ resultsBus: 'diagnosis-agent-prod-DiagnosisResults' });
  });

  it('alarms on dead-lettered deliveries, the dead-letter queue depth, failed attempts, refused events and queue age', () => {
    const names = platform.ofType('aws.cloudwatch.MetricAlarm').map((alarm) => alarm.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'AlarmDeliveriesDeadLettered',
        'AlarmDeliveryDeadLetterQueueDepth',
        'AlarmDeliveryAttemptsFailed',
        'AlarmResultEventsPublishFailed',
        'AlarmDeliveryQueueAge',
        'AlarmDeliverResultsErrors',
        'AlarmOnRunFinishedErrors',
      ]),
    );
    const depth = platform
      .ofType('aws.cloudwatch.MetricAlarm')
      .find((alarm) => alarm.name === 'AlarmDeliveryDeadLetterQueueDepth');
    expect(JSON.stringify(depth?.args.metricQueries)).toContain('diagnosis-agent-prod-DeliveryDeadLetters');
  });
});

describe('sst.config.ts wiring the delivery’s reveal (issue 22)', async () => {
  const delivery = {
    destinations: {
      E1001: [{ id: 'oncall', type: 'slack', secret: 'DestinationSlackE1001' }],
      E2002: [{ id: 'oncall', type: 'slack', secret: 'DestinationSlackE2002' }],
    },
    reveal: { E1001: true, E2002: false },
  };
  const { platform } = await runConfig('prod', { ...production, delivery });
  const deliver = platform.ofType('sst.aws.Function').find((fn) => fn.name === 'DeliverResults');

  it('links the masking secret to DeliverResults, grants it the pseudonym partitions and names the enterprises that opted in', () => {
    const links = ((deliver?.args.link ?? []) as { name?: unknown }[]).map((link) => String(link.name));
    expect(links.filter((name) => name.includes('MaskingKey'))).toHaveLength(1);
    const permissions = deliver?.args.permissions as { actions: string[]; conditions?: { values: string[] }[] }[];
    const dynamo = permissions.filter((permission) =>
      permission.actions.some((action) => action.startsWith('dynamodb:')),
    );
    expect(dynamo.map((permission) => [permission.actions, permission.conditions?.[0]?.values])).toEqual([
      [['dynamodb:GetItem'], ['RUN#*']],
      [['dynamodb:UpdateItem', 'dynamodb:Query'], ['DELIVERY#*']],
      // Read only: a Query of the map's batches, never a write, and no other partition.
      [['dynamodb:Query'], ['PSEUDONYMS#*']],
    ]);
    expect(deliver?.args.environment).toMatchObject({ DELIVERY_REVEAL: '["E1001"]' });
  });
});

describe('sst.config.ts with destinations but no reveal', async () => {
  const delivery = { destinations: { E1001: [{ id: 'oncall', type: 'slack', secret: 'DestinationSlackE1001' }] } };
  const { platform } = await runConfig('prod', { ...production, delivery: { ...delivery, reveal: { E1001: false } } });
  const deliver = platform.ofType('sst.aws.Function').find((fn) => fn.name === 'DeliverResults');

  it('keeps the masking secret and the pseudonym partitions from DeliverResults', () => {
    const links = ((deliver?.args.link ?? []) as { name?: unknown }[]).map((link) => String(link.name));
    expect(links.some((name) => name.includes('MaskingKey'))).toBe(false);
    expect(JSON.stringify(deliver?.args.permissions)).not.toContain('PSEUDONYMS#');
    expect(deliver?.args.environment).not.toHaveProperty('DELIVERY_REVEAL');
  });
});
