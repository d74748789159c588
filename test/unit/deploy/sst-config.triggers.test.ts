import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { type FakePlatform, runSstConfigOn } from '../../support/fake-sst-platform.ts';

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

/** `sst.config.ts`'s real `run()` on a stage file with triggers (see sst-config.test.ts for the stand-in). */
const runConfig = (stageFile: unknown): Promise<FakePlatform> => runSstConfigOn(stageFile, roots);

const cloudwatch = { source: 'cloudwatch', alarmNamePattern: 'E1001-*', enterpriseId: 'E1001' };
const pagerduty = { source: 'pagerduty', serviceId: 'PF9KMXH', enterpriseId: 'E1001' };

describe('sst.config.ts with trigger mappings', async () => {
  const withWebhooks = await runConfig({
    settings: { TRIGGER_QUIET_PERIOD_SECONDS: '300' },
    triggers: [cloudwatch, pagerduty],
  });
  const functions = withWebhooks.ofType('sst.aws.Function');
  const trigger = functions.find((fn) => fn.name === 'Trigger');
  const webhook = functions.find((fn) => fn.name === 'TriggerWebhook');

  it('creates the Trigger function with the mappings, quiet period, lookback and zone', () => {
    const environment = trigger?.args.environment as Record<string, string>;
    expect(JSON.parse(environment.TRIGGERS ?? '')).toEqual([cloudwatch, pagerduty]);
    expect(environment).toMatchObject({
      TRIGGER_QUIET_PERIOD_SECONDS: '300',
      TRIGGER_LOOKBACK_MINUTES: '30',
      DIAGNOSIS_TIMEZONE: 'Asia/Shanghai',
    });
    expect(environment.DIAGNOSIS_WORKFLOW_ARN).toContain(':states:');
  });

  it('invokes it from an EventBridge rule on alarms that enter ALARM, and from nothing else', () => {
    const rule = withWebhooks.ofType('aws.cloudwatch.EventRule').find((entry) => entry.name === 'AlarmStateChange');
    expect(JSON.parse(String(rule?.args.eventPattern))).toEqual({
      source: ['aws.cloudwatch'],
      'detail-type': ['CloudWatch Alarm State Change'],
      detail: { state: { value: ['ALARM'] } },
    });
    const permission = withWebhooks
      .ofType('aws.lambda.Permission')
      .find((entry) => entry.name === 'AlarmStateChangeInvoke');
    expect(permission?.args).toMatchObject({
      principal: 'events.amazonaws.com',
      sourceArn: expect.stringContaining('AlarmStateChange'),
    });
  });

  it('lets the trigger functions touch only run, open-runs, incident and webhook-event items, query changes, and start only the workflow', () => {
    for (const fn of [trigger, webhook]) {
      const permissions = fn?.args.permissions as { actions: string[]; resources: string[]; conditions?: unknown }[];
      const table = permissions.find((permission) => permission.actions.includes('dynamodb:PutItem'));
      expect(table?.conditions).toEqual([
        {
          test: 'ForAllValues:StringLike',
          variable: 'dynamodb:LeadingKeys',
          values: ['RUN#*', 'TENANT#*#OPEN', 'INCIDENT#*', 'WEBHOOK#*'],
        },
      ]);
      // Issue 32, item 10: the new run's pseudonym map (the question's values), put only, never read.
      expect(
        permissions
          .filter((permission) => JSON.stringify(permission.conditions ?? []).includes('PSEUDONYMS#'))
          .map((permission) => [permission.actions, permission.conditions]),
      ).toEqual([
        [
          ['dynamodb:PutItem'],
          [{ test: 'ForAllValues:StringLike', variable: 'dynamodb:LeadingKeys', values: ['PSEUDONYMS#*'] }],
        ],
      ]);
      // The enterprises' changes, queried only (a new run's question counts its lookback's changes).
      expect(
        permissions
          .filter((permission) => JSON.stringify(permission.conditions ?? []).includes('CHANGES#'))
          .map((permission) => [permission.actions, permission.conditions]),
      ).toEqual([
        [
          ['dynamodb:Query'],
          [{ test: 'ForAllValues:StringLike', variable: 'dynamodb:LeadingKeys', values: ['CHANGES#*'] }],
        ],
      ]);
      expect(permissions.find((permission) => permission.actions.includes('states:StartExecution'))?.resources).toEqual(
        [expect.stringContaining('DiagnosisWorkflow')],
      );
      expect(permissions.flatMap((permission) => permission.actions).every((action) => !action.includes('*'))).toBe(
        true,
      );
    }
  });

  it('adds POST /triggers/{source} on the IngressApi without IAM, on the webhook function linked to the two secrets and MaskingKey only', () => {
    const route = withWebhooks.routes.find((entry) => entry.route === 'POST /triggers/{source}');
    expect(route?.args).toBeUndefined();
    expect(route?.api).toBe('IngressApi');
    // Every other route stays behind IAM.
    for (const other of withWebhooks.routes.filter((entry) => entry !== route)) {
      expect(other.args).toEqual({ auth: { iam: true } });
    }
    const secrets = withWebhooks.ofType('sst.Secret').map((secret) => [secret.name, secret.args]);
    expect(secrets).toContainEqual(['AlertmanagerWebhookToken', 'none']);
    expect(secrets).toContainEqual(['PagerDutyWebhookSecrets', 'none']);
    expect(webhook?.args.link).toHaveLength(3);
    expect(JSON.stringify(trigger?.args)).not.toContain('Webhook');
    // The sender's texts are masked with the run's key (issue 32, item 10): both functions link MaskingKey.
    for (const fn of [trigger, webhook]) {
      const links = (fn?.args.link ?? []) as { name?: unknown }[];
      expect(links.some((link) => String(link.name).includes('MaskingKey'))).toBe(true);
    }
  });

  it('alarms on the trigger functions’ errors, on trigger failures and on refused webhooks', () => {
    const alarms = withWebhooks.ofType('aws.cloudwatch.MetricAlarm').map((alarm) => alarm.name);
    expect(alarms).toEqual(
      expect.arrayContaining([
        'AlarmTriggerErrors',
        'AlarmTriggerWebhookErrors',
        'AlarmTriggerFailures',
        'AlarmTriggerWebhookRefusals',
      ]),
    );
    const [dashboard] = withWebhooks.ofType('aws.cloudwatch.Dashboard');
    expect(String(dashboard?.args.dashboardBody)).toContain('TriggerFailures');
  });

  it('sends an alarm event Trigger failed three times to TriggerDeadLetters, and alarms on its depth', () => {
    const queue = withWebhooks.ofType('sst.aws.Queue').find((entry) => entry.name === 'TriggerDeadLetters');
    expect(queue).toBeDefined();
    const [config, ...others] = withWebhooks.ofType('aws.lambda.FunctionEventInvokeConfig');
    expect(others).toEqual([]);
    expect(config?.args).toMatchObject({
      functionName: expect.stringContaining('Trigger'),
      maximumRetryAttempts: 2,
      destinationConfig: { onFailure: { destination: expect.stringContaining('TriggerDeadLetters') } },
    });
    const permissions = JSON.stringify(trigger?.args.permissions);
    expect(permissions).toContain('sqs:SendMessage');
    expect(permissions).toContain('TriggerDeadLetters');
    const depth = withWebhooks
      .ofType('aws.cloudwatch.MetricAlarm')
      .find((alarm) => alarm.name === 'AlarmTriggerDeadLetterQueueDepth');
    expect(depth?.args).toMatchObject({ threshold: 1 });
    expect(JSON.stringify(depth?.args)).toContain('ApproximateNumberOfMessagesVisible');
    expect(JSON.stringify(depth?.args)).toContain('TriggerDeadLetters');
  });

  it('creates no webhook function or route when only CloudWatch alarms are mapped, and nothing without triggers', async () => {
    const alarmsOnly = await runConfig({ settings: {}, triggers: [cloudwatch] });
    expect(alarmsOnly.ofType('sst.aws.Function').map((fn) => fn.name)).toContain('Trigger');
    expect(alarmsOnly.ofType('sst.aws.Function').map((fn) => fn.name)).not.toContain('TriggerWebhook');
    expect(alarmsOnly.routes.map((entry) => entry.route)).not.toContain('POST /triggers/{source}');
    const none = await runConfig({ settings: {} });
    expect(none.ofType('sst.aws.Function').map((fn) => fn.name)).not.toContain('Trigger');
    expect(none.ofType('aws.cloudwatch.EventRule').map((rule) => rule.name)).not.toContain('AlarmStateChange');
    expect(none.ofType('aws.cloudwatch.MetricAlarm').map((alarm) => alarm.name)).not.toContain('AlarmTriggerFailures');
  });

  it('creates and links one secret per mapping credential, to the webhook function only (issue 32 hardening)', async () => {
    const own = await runConfig({
      settings: {},
      triggers: [
        { ...cloudwatch, accountId: '123456789012', region: 'cn-north-1' },
        { ...pagerduty, secret: 'WebhookPdE1001' },
        { source: 'alertmanager', labels: { team: 'billing' }, enterpriseId: 'E2002', secret: 'WebhookAmE2002' },
        { source: 'alertmanager', labels: { team: 'search' }, enterpriseId: 'E3003', secret: 'WebhookAmE2002' },
      ],
    });
    const secrets = own.ofType('sst.Secret').map((secret) => [secret.name, secret.args]);
    expect(secrets).toContainEqual(['WebhookPdE1001', 'none']);
    expect(secrets).toContainEqual(['WebhookAmE2002', 'none']);
    const fns = own.ofType('sst.aws.Function');
    const ownWebhook = fns.find((fn) => fn.name === 'TriggerWebhook');
    // The two sources' secrets, the two mapping credentials, and MaskingKey (issue 32, item 10).
    expect(ownWebhook?.args.link).toHaveLength(5);
    // The alarm function is linked to no webhook secret (its TRIGGERS name the secrets, never hold their values):
    // only to MaskingKey, which masks the alarm's texts.
    const alarmLinks = (fns.find((fn) => fn.name === 'Trigger')?.args.link ?? []) as { name?: unknown }[];
    expect(alarmLinks.map((link) => String(link.name))).toEqual([expect.stringContaining('MaskingKey')]);
  });

  it('refuses a mapping secret whose name is not a Webhook… SST secret name', async () => {
    await expect(runConfig({ settings: {}, triggers: [{ ...pagerduty, secret: 'ModelApiKey' }] })).rejects.toThrow(
      'deploy/dev.json: invalid or unknown keys: triggers.0.secret',
    );
  });

  it('refuses a stage file whose mapping the trigger would refuse, naming it', async () => {
    await expect(runConfig({ settings: {}, triggers: [{ ...cloudwatch, enterpriseId: 'e1001' }] })).rejects.toThrow(
      'deploy/dev.json: invalid or unknown keys: triggers.0.enterpriseId',
    );
  });
});
