import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { type FakePlatform, runSstConfigOn } from '../../support/fake-sst-platform.ts';

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

/** `sst.config.ts`'s real `run()` on a stage file with a Slack app (see sst-config.test.ts for the stand-in). */
const runConfig = (stageFile: unknown): Promise<FakePlatform> => runSstConfigOn(stageFile, roots);

const app = {
  id: 'e1001',
  enterpriseId: 'E1001',
  teamId: 'T0E1001AA',
  channels: ['C0E1001AA'],
  alertChannel: 'C0E1001AA',
  botTokenSecret: 'SlackE1001BotToken',
  signingSecretSecret: 'SlackE1001SigningSecret',
};

describe('sst.config.ts with a Slack app', async () => {
  const platform = await runConfig({ settings: {}, slack: { apps: [app] } });
  const functions = platform.ofType('sst.aws.Function');
  const requests = functions.find((fn) => fn.name === 'SlackRequests');
  const work = functions.find((fn) => fn.name === 'SlackWork');

  it('declares the app’s two secrets and links them to both Slack functions', () => {
    const secrets = platform.ofType('sst.Secret').map((secret) => secret.name);
    expect(secrets).toEqual(expect.arrayContaining(['SlackE1001BotToken', 'SlackE1001SigningSecret']));
    expect(requests).toBeDefined();
    expect(work).toBeDefined();
    expect(JSON.parse(String((requests?.args.environment as Record<string, string> | undefined)?.SLACK_APPS))).toEqual([
      app,
    ]);
  });

  it('routes POST /slack/{appId}/{kind} on the IngressApi to SlackRequests without IAM (Slack signs its requests)', () => {
    const route = platform.routes.find((entry) => entry.route === 'POST /slack/{appId}/{kind}');
    expect(route).toBeDefined();
    expect(route?.args).toBeUndefined();
    expect(route?.api).toBe('IngressApi');
  });

  it('lets SlackRequests claim requests and queue work, and nothing else of the table', () => {
    const permissions = requests?.args.permissions as { actions: string[]; conditions?: { values: string[] }[] }[];
    const table = permissions.filter((permission) =>
      permission.actions.some((action) => action.startsWith('dynamodb:')),
    );
    expect(table).toEqual([expect.objectContaining({ actions: ['dynamodb:PutItem'] })]);
    expect(table[0]?.conditions?.[0]?.values).toEqual(['SLACKREQ#*']);
  });

  it('creates no Slack function, route or secret for a stage without apps', async () => {
    const without = await runConfig({ settings: {} });
    expect(without.ofType('sst.aws.Function').map((fn) => fn.name)).not.toContain('SlackRequests');
    expect(without.routes.map((entry) => entry.route)).not.toContain('POST /slack/{appId}/{kind}');
  });
});
