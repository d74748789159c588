import { loadScriptedConversation, type ScriptedConversation } from '@diagnosis/devkit';

export { lambdaContext } from '../../packages/devkit/src/lambda-context.ts';

const IAM = {
  accessKey: 'ASIAEXAMPLE',
  accountId: '000000000000',
  callerId: 'AROAEXAMPLE:caller',
  principalOrgId: null,
  userArn: 'arn:aws:sts::000000000000:assumed-role/ops/caller',
  userId: 'AROAEXAMPLE:caller',
};

/** An API Gateway HTTP API (v2) event, IAM-authorized unless `iam: false`. */
export function httpEvent(
  options: {
    method?: string;
    path?: string;
    body?: string | undefined;
    /** false: no IAM authorizer; an object: the caller's IAM context instead of the default `ops/caller` role. */
    iam?: boolean | Record<string, unknown>;
    headers?: Record<string, string>;
    isBase64Encoded?: boolean;
    pathParameters?: Record<string, string>;
    queryStringParameters?: Record<string, string>;
  } = {},
) {
  const method = options.method ?? 'POST';
  const path = options.path ?? '/diagnoses';
  return {
    version: '2.0',
    routeKey: `${method} ${path}`,
    rawPath: path,
    rawQueryString: '',
    headers: options.headers ?? { 'content-type': 'application/json' },
    requestContext: {
      accountId: '000000000000',
      apiId: 'api',
      domainName: 'api.example',
      domainPrefix: 'api',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '10.0.0.1', userAgent: 'test' },
      requestId: 'r',
      routeKey: `${method} ${path}`,
      stage: '$default',
      time: '30/Nov/2026:06:10:00 +0000',
      timeEpoch: 1_796_018_000_000,
      ...(options.iam === false ? {} : { authorizer: { iam: typeof options.iam === 'object' ? options.iam : IAM } }),
    },
    ...(options.body === undefined ? {} : { body: options.body }),
    isBase64Encoded: options.isBase64Encoded ?? false,
    ...(options.pathParameters === undefined ? {} : { pathParameters: options.pathParameters }),
    ...(options.queryStringParameters === undefined ? {} : { queryStringParameters: options.queryStringParameters }),
  };
}

export type { ScriptedConversation };

/** The scripted E1001 conversation that the demo replays (the agent's rounds and the judge's answer). */
export function e1001ScriptedConversation(): ScriptedConversation {
  return loadScriptedConversation();
}
