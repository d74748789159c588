import { readFileSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_INGRESS_THROTTLING } from '../../../deploy/ingress.ts';
import { type FakePlatform, resolveOutputs, runSstConfigOn } from '../../support/fake-sst-platform.ts';

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

/** `sst.config.ts`'s real `run()` on a stage file (see sst-config.test.ts for the stand-in). */
const runConfig = (stageFile: unknown): Promise<FakePlatform> => runSstConfigOn(stageFile, roots);

/** A stage that deploys every route: webhook mappings (Alertmanager, PagerDuty), a change webhook and a Slack app. */
const everyRoute = {
  settings: {},
  triggers: [
    { source: 'cloudwatch', alarmNamePattern: 'E1001-*', enterpriseId: 'E1001' },
    { source: 'alertmanager', labels: { team: 'payments' }, enterpriseId: 'E1001' },
    { source: 'pagerduty', serviceId: 'PF9KMXH', enterpriseId: 'E1001' },
  ],
  changes: {
    sources: [
      { source: 'webhook', id: 'argocd-e1001', enterpriseId: 'E1001', secret: 'ChangeArgoE1001', services: ['web'] },
    ],
  },
  slack: {
    apps: [
      {
        id: 'e1001',
        enterpriseId: 'E1001',
        teamId: 'T0E1001AA',
        channels: ['C0E1001AA'],
        botTokenSecret: 'SlackE1001BotToken',
        signingSecretSecret: 'SlackE1001SigningSecret',
      },
    ],
  },
};

interface RouteRow {
  route: string;
  api: string;
  function: string;
  iam: boolean;
}

/** The function a route's handler is: its deployed ARN ends with `diagnosis-agent-<stage>-<Function>`. */
const functionOf = (handler: unknown) => String(resolveOutputs(handler)).replace(/^.*:diagnosis-agent-dev-/, '');

const deployedRoutes = (platform: FakePlatform): RouteRow[] =>
  platform.routes.map((entry) => ({
    route: entry.route,
    api: entry.api,
    function: functionOf(entry.handler),
    iam: JSON.stringify(entry.args) === JSON.stringify({ auth: { iam: true } }),
  }));

/** The rows of the first Markdown table after `heading` whose first header cell is `firstColumn`. */
function tableAfter(page: string, heading: string, firstColumn: string): string[][] {
  const section = page.slice(page.indexOf(heading));
  const lines = section.split('\n');
  const start = lines.findIndex((line) => new RegExp(`^\\|\\s*${firstColumn}\\s*\\|`).test(line));
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .slice(1, -1)
        .split('|')
        .map((cell) => cell.trim().replace(/^`|`$/g, '')),
    );
  }
  return rows;
}

/** The IngressApi's stage transform (SST's `transform.stage`), as the config gave it. */
function ingressStageTransform(platform: FakePlatform): (args: object, opts: object) => void {
  const [api] = platform.ofType('sst.aws.ApiGatewayV2').filter((entry) => entry.name === 'IngressApi');
  const transform = api?.args.transform as { stage?: (args: object, opts: object) => void } | undefined;
  if (transform?.stage === undefined) throw new Error('the IngressApi has no stage transform');
  return transform.stage;
}

const SECURITY = readFileSync(resolve(import.meta.dirname, '../../../docs/security.md'), 'utf8');
const ROUTE_HEADING = '## Every route, and how it is authenticated';

describe('sst.config.ts: the InternalApi and the IngressApi', async () => {
  const platform = await runConfig(everyRoute);
  const routes = deployedRoutes(platform);

  it('puts every InternalApi route behind IAM', () => {
    const internal = routes.filter((route) => route.api === 'InternalApi');
    expect(internal.length).toBeGreaterThanOrEqual(9);
    expect(internal.filter((route) => !route.iam).map((route) => route.route)).toEqual([]);
  });

  it('puts the routes senders outside AWS call on the IngressApi, none behind IAM', () => {
    const ingress = routes.filter((route) => route.api === 'IngressApi');
    expect(ingress.map((route) => [route.route, route.function, route.iam])).toEqual([
      ['POST /triggers/{source}', 'TriggerWebhook', false],
      ['POST /changes/{source}', 'ChangeWebhook', false],
      ['POST /slack/{appId}/{kind}', 'SlackRequests', false],
    ]);
    expect(routes.every((route) => route.api === 'InternalApi' || route.api === 'IngressApi')).toBe(true);
  });

  it('matches docs/security.md’s route table, route for route: API, function and IAM or not', () => {
    const documented = tableAfter(SECURITY, ROUTE_HEADING, 'route').map(([route, api, fn, auth]) => ({
      route: route ?? '',
      api: api ?? '',
      function: (fn ?? '').replace(/`/g, ''),
      iam: (auth ?? '').startsWith('IAM'),
    }));
    const byRoute = (a: RouteRow, b: RouteRow) => a.route.localeCompare(b.route);
    expect(documented.toSorted(byRoute)).toEqual(routes.toSorted(byRoute));
  });

  it('gives the IngressApi’s stage a throttle per route created, once the routes exist, as documented', async () => {
    const args: Record<string, unknown> = {};
    const opts: Record<string, unknown> = {};
    ingressStageTransform(platform)(args, opts);
    const dependsOn = (await opts.dependsOn) as { api: string; routeKey: string }[];
    expect(dependsOn.map((route) => [route.api, route.routeKey])).toEqual([
      ['IngressApi', 'POST /triggers/{source}'],
      ['IngressApi', 'POST /changes/{source}'],
      ['IngressApi', 'POST /slack/{appId}/{kind}'],
    ]);
    const routeSettings = (await args.routeSettings) as Record<string, unknown>[];
    const documented = tableAfter(SECURITY, ROUTE_HEADING, 'ingress route').map(([route, rate, burst]) => ({
      routeKey: route,
      throttlingRateLimit: Number(rate),
      throttlingBurstLimit: Number(burst),
    }));
    expect(routeSettings).toEqual(documented);
    expect(await args.defaultRouteSettings).toEqual({ throttlingRateLimit: 10, throttlingBurstLimit: 20 });
    for (const setting of routeSettings) {
      const key = setting.routeKey as keyof typeof DEFAULT_INGRESS_THROTTLING;
      expect(setting.throttlingRateLimit).toBe(DEFAULT_INGRESS_THROTTLING[key].rateLimit);
    }
  });

  it('takes a route’s throttle from the stage file, and refuses a route that is not an ingress route', async () => {
    const own = await runConfig({
      ...everyRoute,
      ingress: { throttling: { 'POST /slack/{appId}/{kind}': { rateLimit: 5, burstLimit: 7 } } },
    });
    const args: Record<string, unknown> = {};
    ingressStageTransform(own)(args, {});
    expect(await args.routeSettings).toContainEqual({
      routeKey: 'POST /slack/{appId}/{kind}',
      throttlingRateLimit: 5,
      throttlingBurstLimit: 7,
    });
    await expect(
      runConfig({ ...everyRoute, ingress: { throttling: { 'POST /diagnoses': { rateLimit: 5, burstLimit: 7 } } } }),
    ).rejects.toThrow('deploy/dev.json: invalid or unknown keys: ingress.throttling.POST /diagnoses');
  });

  it('outputs the IngressApi’s URL as `ingress`, beside the InternalApi’s `api`, and graphs its requests', () => {
    expect(platform.ofType('sst.aws.ApiGatewayV2').map((entry) => entry.name)).toEqual(['InternalApi', 'IngressApi']);
    const [dashboard] = platform.ofType('aws.cloudwatch.Dashboard');
    expect(String(dashboard?.args.dashboardBody)).toContain('"Ingress requests, 4xx and 5xx"');
    expect(String(dashboard?.args.dashboardBody)).toContain('ingressapi-api-id');
    expect(platform.outputs).toMatchObject({
      api: 'https://internalapi.execute-api.eu-west-1.amazonaws.com',
      ingress: 'https://ingressapi.execute-api.eu-west-1.amazonaws.com',
    });
  });
});
