import type { ApiFunctionName, ApiHandler } from '@diagnosis/functions';
import { describe, expect, it } from 'vitest';
import { buildServeRoutes, matchRoute } from '../../../../packages/cli/src/serve/serve-routes.ts';
import { readDeploymentSource } from '../../../support/deployment-source.ts';

const handler: ApiHandler = async () => ({ statusCode: 200 });
const handlers = Object.fromEntries(
  [
    'StartDiagnosis',
    'GetRun',
    'GetRunAudit',
    'GetRunReasoning',
    'GetRunReveal',
    'CancelRun',
    'RunFeedback',
    'TriggerWebhook',
  ].map((name) => [name, handler]),
) as Record<ApiFunctionName, ApiHandler>;

describe('buildServeRoutes', () => {
  it('declares every route of the deployed InternalApi and IngressApi, IAM except the webhook route', async () => {
    const config = readDeploymentSource();
    const deployed = [
      ...config.matchAll(/(?:api\.route|ingressRoute)\('([A-Z]+ [^']+)', \w+\.arn(, \{ auth: \{ iam: true \} \})?\)/g),
    ]
      .map(([, key, iam]) => `${key} ${iam === undefined ? 'none' : 'iam'}`)
      // NOTE: the Slack app's route is deployed only for a stage with Slack apps; `diagnosis serve` adds it then,
      // through `extraRoutes` (test/e2e/local/cli-serve-slack.test.ts).
      .filter((route) => route !== 'POST /slack/{appId}/{kind} none');
    const routes = buildServeRoutes(handlers).map(
      (route) => `${route.method} ${route.path.replace('{runId}', '{runId}')} ${route.auth}`,
    );
    expect(routes.sort()).toEqual(deployed.sort());
  });

  it('registers a capability’s extra routes beside them, and refuses a route declared twice', () => {
    const chat = {
      method: 'POST' as const,
      path: '/chat/slack/events',
      auth: 'none' as const,
      functionName: 'SlackEvents',
      handler,
    };
    expect(buildServeRoutes(handlers, [chat]).at(-1)).toBe(chat);
    expect(() => buildServeRoutes(handlers, [{ ...chat, path: '/diagnoses' }])).toThrow(
      'POST /diagnoses is declared twice',
    );
  });
});

describe('matchRoute', () => {
  const routes = buildServeRoutes(handlers);

  it('selects the route and gives its path parameters, one decoded segment each', () => {
    expect(matchRoute(routes, 'GET', '/runs/01ABC/audit')).toMatchObject({
      routeKey: 'GET /runs/{runId}/audit',
      pathParameters: { runId: '01ABC' },
    });
    expect(matchRoute(routes, 'POST', '/triggers/alert%6Danager')?.pathParameters).toEqual({ source: 'alertmanager' });
  });

  it.each([
    ['another method', 'DELETE', '/runs/R1'],
    ['a path with a further segment', 'GET', '/runs/R1/audit/x'],
    ['an empty parameter', 'GET', '/runs//audit'],
    ['an undecodable parameter', 'GET', '/runs/%E0%A4%A'],
    ['the root', 'GET', '/'],
  ])('matches nothing for %s', (_case, method, path) => {
    expect(matchRoute(routes, method, path)).toBeNull();
  });
});
