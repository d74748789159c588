/**
 * An API Gateway HTTP API request as the Lambda function behind a route receives it: payload format 2.0, as AWS
 * documents it ("Working with AWS Lambda proxy integrations for HTTP APIs"): `version`, `routeKey`, `rawPath`,
 * `rawQueryString`, `cookies`, `headers` (lower-case names, repeated headers joined with commas),
 * `queryStringParameters` (repeated names joined with commas), `requestContext` (with `authorizer.iam` on an IAM
 * route), `pathParameters`, `body` and `isBase64Encoded`; empty parts are left out, as API Gateway leaves them out.
 */
import { randomUUID } from 'node:crypto';
import type { IamAuthorizerContext } from './local-principal.ts';

export interface HttpRequestParts {
  method: string;
  /** The request target as it arrived: path and query string. */
  target: string;
  /** Node's raw header list: name, value, name, value… */
  rawHeaders: readonly string[];
  body: Buffer;
  sourceIp: string;
}

/** The account and API id the local events name (the IAM context names the caller's own account). */
const LOCAL_ACCOUNT = '000000000000';
const LOCAL_API_ID = 'local';

/** Content types API Gateway passes as text; any other body arrives base64-encoded (`isBase64Encoded: true`). */
const TEXT_TYPE =
  /^(text\/[^;]+|application\/([\w.+-]*\+)?(json|xml)|application\/javascript|application\/x-www-form-urlencoded)\s*(;|$)/i;

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `12/Mar/2020:19:03:58 +0000`, the request time's form in `requestContext.time`. */
export function requestTime(epochMs: number): string {
  const date = new Date(epochMs);
  const two = (value: number) => String(value).padStart(2, '0');
  return `${two(date.getUTCDate())}/${MONTHS[date.getUTCMonth()]}/${date.getUTCFullYear()}:${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())} +0000`;
}

/** The path of a target, without its query string. */
export function pathOf(target: string): string {
  const at = target.indexOf('?');
  return at === -1 ? target : target.slice(0, at);
}

/**
 * The event of one request for the route `routeKey` (`GET /runs/{runId}`), with its path parameters, the IAM context
 * when the route is an IAM route, and headers the server keeps to itself (`omitHeaders`) left out.
 */
export function buildHttpApiEvent(
  request: HttpRequestParts,
  route: { routeKey: string; pathParameters: Record<string, string> },
  options: { iam?: IamAuthorizerContext; omitHeaders?: readonly string[]; now: number; domainName: string },
) {
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (let index = 0; index + 1 < request.rawHeaders.length; index += 2) {
    const name = (request.rawHeaders[index] ?? '').toLowerCase();
    const value = request.rawHeaders[index + 1] ?? '';
    if (options.omitHeaders?.includes(name)) continue;
    if (name === 'cookie') {
      cookies.push(
        ...value
          .split(';')
          .map((cookie) => cookie.trim())
          .filter((cookie) => cookie !== ''),
      );
      continue;
    }
    headers[name] = name in headers ? `${headers[name]},${value}` : value;
  }
  const path = pathOf(request.target);
  const rawQueryString = request.target.length > path.length ? request.target.slice(path.length + 1) : '';
  const query: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(rawQueryString)) {
    query[name] = name in query ? `${query[name]},${value}` : value;
  }
  const contentType = headers['content-type'] ?? '';
  const text = request.body.length === 0 || TEXT_TYPE.test(contentType);
  const body = text ? request.body.toString('utf8') : request.body.toString('base64');
  return {
    version: '2.0' as const,
    routeKey: route.routeKey,
    rawPath: path,
    rawQueryString,
    ...(cookies.length === 0 ? {} : { cookies }),
    headers,
    ...(Object.keys(query).length === 0 ? {} : { queryStringParameters: query }),
    requestContext: {
      accountId: LOCAL_ACCOUNT,
      apiId: LOCAL_API_ID,
      ...(options.iam === undefined ? {} : { authorizer: { iam: options.iam } }),
      domainName: options.domainName,
      domainPrefix: options.domainName.split('.')[0] ?? options.domainName,
      http: {
        method: request.method,
        path,
        protocol: 'HTTP/1.1',
        sourceIp: request.sourceIp,
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey: route.routeKey,
      stage: '$default',
      time: requestTime(options.now),
      timeEpoch: options.now,
    },
    ...(request.body.length === 0 ? {} : { body }),
    ...(Object.keys(route.pathParameters).length === 0 ? {} : { pathParameters: route.pathParameters }),
    isBase64Encoded: !text,
  };
}
