import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { type FakePlatform, runSstConfigOn } from '../../support/fake-sst-platform.ts';

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

/** `sst.config.ts`'s real `run()` on a stage file with change sources (see sst-config.test.ts for the stand-in). */
const runConfig = (stageFile: unknown): Promise<FakePlatform> => runSstConfigOn(stageFile, roots);

const argo = {
  source: 'webhook',
  id: 'argocd-e1001',
  enterpriseId: 'E1001',
  secret: 'ChangeArgoE1001',
  auth: 'bearer',
  services: ['order-service'],
};
const github = {
  source: 'github',
  repository: 'acme/order-service',
  service: 'order-service',
  enterpriseId: 'E1001',
  secret: 'ChangeGithubAcme',
};
const cloudtrail = { source: 'cloudtrail', accountId: '111122223333', region: 'cn-north-1', enterpriseId: 'E1001' };

describe('sst.config.ts with change sources', async () => {
  const platform = await runConfig({
    settings: { CHANGE_RETENTION_DAYS: 14 },
    changes: { sources: [argo, github, cloudtrail] },
  });
  const functions = platform.ofType('sst.aws.Function');
  const webhook = functions.find((fn) => fn.name === 'ChangeWebhook');
  const events = functions.find((fn) => fn.name === 'ChangeEvents');

  it('creates ChangeWebhook, linked to each source’s own secret only, on POST /changes/{source} of the IngressApi', () => {
    const route = platform.routes.find((entry) => entry.route === 'POST /changes/{source}');
    expect(route).toMatchObject({ api: 'IngressApi', args: undefined });
    const secrets = platform.ofType('sst.Secret').map((secret) => [secret.name, secret.args]);
    expect(secrets).toContainEqual(['ChangeArgoE1001', 'none']);
    expect(secrets).toContainEqual(['ChangeGithubAcme', 'none']);
    const links = (webhook?.args.link ?? []) as { name: unknown }[];
    expect(links.map((link) => String(link.name))).toEqual([
      expect.stringContaining('ChangeArgoE1001'),
      expect.stringContaining('ChangeGithubAcme'),
    ]);
    expect(events?.args.link).toEqual([]);
  });

  it('lets both change functions put change items only, and gives them the sources and the retention', () => {
    for (const fn of [webhook, events]) {
      const permissions = fn?.args.permissions as { actions: string[]; conditions?: unknown }[];
      const table = permissions.filter((permission) =>
        permission.actions.some((action) => action.startsWith('dynamodb:')),
      );
      expect(table).toEqual([
        {
          actions: ['dynamodb:PutItem'],
          resources: [expect.stringContaining('DiagnosisTable')],
          conditions: [{ test: 'ForAllValues:StringLike', variable: 'dynamodb:LeadingKeys', values: ['CHANGES#*'] }],
        },
      ]);
      const environment = fn?.args.environment as Record<string, string>;
      expect(JSON.parse(environment.CHANGE_SOURCES ?? '')).toEqual([
        { ...argo, format: 'generic' },
        github,
        cloudtrail,
      ]);
      expect(environment.CHANGE_RETENTION_DAYS).toBe('14');
    }
  });

  it('invokes ChangeEvents from a rule on successful write calls of the mapped accounts, without the noise', () => {
    const rule = platform.ofType('aws.cloudwatch.EventRule').find((entry) => entry.name === 'CloudTrailWriteCalls');
    expect(JSON.parse(String(rule?.args.eventPattern))).toEqual({
      'detail-type': ['AWS API Call via CloudTrail'],
      account: ['111122223333'],
      detail: {
        readOnly: [false],
        eventSource: [{ 'anything-but': expect.arrayContaining(['sts.amazonaws.com', 'kms.amazonaws.com']) }],
        errorCode: [{ exists: false }],
      },
    });
    const permission = platform
      .ofType('aws.lambda.Permission')
      .find((entry) => entry.name === 'CloudTrailWriteCallsInvoke');
    expect(permission?.args).toMatchObject({
      principal: 'events.amazonaws.com',
      function: expect.stringContaining('ChangeEvents'),
    });
    const alarms = platform.ofType('aws.cloudwatch.MetricAlarm').map((alarm) => alarm.name);
    expect(alarms).toEqual(expect.arrayContaining(['AlarmChangeWebhookErrors', 'AlarmChangeEventsErrors']));
  });

  it('creates only what the sources need: no rule without CloudTrail, no route without webhooks, nothing without sources', async () => {
    const webhooksOnly = await runConfig({ settings: {}, changes: { sources: [argo] } });
    expect(webhooksOnly.ofType('sst.aws.Function').map((fn) => fn.name)).not.toContain('ChangeEvents');
    const trailOnly = await runConfig({ settings: {}, changes: { sources: [cloudtrail] } });
    expect(trailOnly.ofType('sst.aws.Function').map((fn) => fn.name)).not.toContain('ChangeWebhook');
    expect(trailOnly.routes.map((entry) => entry.route)).not.toContain('POST /changes/{source}');
    const none = await runConfig({ settings: {} });
    expect(none.ofType('sst.aws.Function').map((fn) => fn.name)).not.toContain('ChangeWebhook');
    expect(none.ofType('aws.cloudwatch.EventRule').map((entry) => entry.name)).not.toContain('CloudTrailWriteCalls');
  });

  it('refuses a stage file whose source the change functions would refuse, naming it', async () => {
    await expect(
      runConfig({ settings: {}, changes: { sources: [{ ...argo, secret: 'ModelApiKey' }] } }),
    ).rejects.toThrow('deploy/dev.json: invalid or unknown keys: changes.sources.0.secret');
    await expect(runConfig({ settings: {}, changes: { sources: [{ ...argo, id: 'github' }] } })).rejects.toThrow(
      'changes.sources.0.id',
    );
    await expect(runConfig({ settings: {}, changes: { sources: [argo, argo] } })).rejects.toThrow('changes.sources');
    await expect(
      runConfig({ settings: {}, changes: { sources: [{ ...github, repository: 'acme' }] } }),
    ).rejects.toThrow('changes.sources.0.repository');
  });
});
