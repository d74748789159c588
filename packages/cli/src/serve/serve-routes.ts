/**
 * The routes `diagnosis serve` answers, in one table: the InternalApi's and the IngressApi's routes as sst.config.ts
 * declares them (method, path template, IAM or not, the function behind each), on one port. A capability that adds routes to the deployed API (a chat
 * app's events and interactivity) adds them here, through `extraRoutes`, and nowhere else: matching, events and
 * answers are the server's.
 */
import type { ApiFunctionName, ApiHandler } from '@diagnosis/functions';

export interface ServeRoute {
  method: 'GET' | 'POST' | 'DELETE';
  /** The path template as API Gateway writes it: `/runs/{runId}/audit`. */
  path: string;
  /** `iam`: behind API Gateway's IAM authorizer (here: the local principal); `none`: the function authenticates. */
  auth: 'iam' | 'none';
  /** The function's name in sst.config.ts (for the log and the start banner). */
  functionName: string;
  handler: ApiHandler;
}

/** The InternalApi's and the IngressApi's routes (sst.config.ts), each with its function. */
export function buildServeRoutes(
  handlers: Record<ApiFunctionName, ApiHandler>,
  extraRoutes: readonly ServeRoute[] = [],
): ServeRoute[] {
  const iam = (method: ServeRoute['method'], path: string, functionName: ApiFunctionName): ServeRoute => ({
    method,
    path,
    auth: 'iam',
    functionName,
    handler: handlers[functionName],
  });
  const routes: ServeRoute[] = [
    iam('POST', '/diagnoses', 'StartDiagnosis'),
    iam('GET', '/runs/{runId}', 'GetRun'),
    iam('GET', '/runs/{runId}/audit', 'GetRunAudit'),
    iam('GET', '/runs/{runId}/reasoning', 'GetRunReasoning'),
    iam('GET', '/runs/{runId}/reveal', 'GetRunReveal'),
    iam('POST', '/runs/{runId}/cancel', 'CancelRun'),
    iam('POST', '/runs/{runId}/feedback', 'RunFeedback'),
    iam('GET', '/enterprises/{enterpriseId}/past-incidents', 'PastIncidents'),
    iam('DELETE', '/enterprises/{enterpriseId}/past-incidents/{runId}', 'PastIncidents'),
    // NOTE: the IngressApi's, no IAM, as deployed: the senders cannot sign AWS requests; the function checks each
    // one's credential.
    {
      method: 'POST',
      path: '/triggers/{source}',
      auth: 'none',
      functionName: 'TriggerWebhook',
      handler: handlers.TriggerWebhook,
    },
    // NOTE: the IngressApi's too: a change source's own secret is the authentication (docs/changes.md).
    {
      method: 'POST',
      path: '/changes/{source}',
      auth: 'none',
      functionName: 'ChangeWebhook',
      handler: handlers.ChangeWebhook,
    },
    ...extraRoutes,
  ];
  const keys = routes.map((route) => `${route.method} ${route.path}`);
  const twice = keys.find((key, index) => keys.indexOf(key) !== index);
  if (twice !== undefined) throw new Error(`the route ${twice} is declared twice`);
  return routes;
}

/**
 * The route a request's method and path select, with its path parameters (each one path segment, URL-decoded, as
 * API Gateway gives them), or null (API Gateway answers 404 `Not Found`). A segment that cannot be decoded matches
 * nothing.
 */
export function matchRoute(
  routes: readonly ServeRoute[],
  method: string,
  path: string,
): { route: ServeRoute; routeKey: string; pathParameters: Record<string, string> } | null {
  const segments = path.split('/');
  for (const route of routes) {
    if (route.method !== method) continue;
    const template = route.path.split('/');
    if (template.length !== segments.length) continue;
    const pathParameters: Record<string, string> = {};
    let matched = true;
    for (let index = 0; index < template.length && matched; index += 1) {
      const part = template[index] ?? '';
      const segment = segments[index] ?? '';
      const name = /^\{(\w+)\}$/.exec(part)?.[1];
      if (name === undefined) {
        matched = part === segment;
        continue;
      }
      const value = decodeSegment(segment);
      if (value === null || value === '') matched = false;
      else pathParameters[name] = value;
    }
    if (matched) return { route, routeKey: `${route.method} ${route.path}`, pathParameters };
  }
  return null;
}

function decodeSegment(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}
