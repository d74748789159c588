import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

/** An API Gateway HTTP API (v2) event as this service sees it: the IAM authorizer context may be present. */
export type HttpApiEvent = APIGatewayProxyEventV2 & {
  requestContext: APIGatewayProxyEventV2['requestContext'] & { authorizer?: { iam?: Record<string, unknown> } };
};

export function isHttpApiEvent(event: unknown): event is HttpApiEvent {
  return (
    typeof event === 'object' &&
    event !== null &&
    !Array.isArray(event) &&
    ((event as { version?: unknown }).version === '2.0' || 'requestContext' in event || 'routeKey' in event)
  );
}

/** The route must never work without IAM, even if mis-wired: the authorizer's IAM context must be there. */
export function hasIamCaller(event: HttpApiEvent): boolean {
  const iam = event.requestContext?.authorizer?.iam;
  return typeof iam === 'object' && iam !== null && Object.keys(iam).length > 0;
}

export function json(statusCode: number, body: unknown): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
    body: JSON.stringify(body),
  };
}

export function errorResponse(statusCode: number, code: string, message: string): APIGatewayProxyStructuredResultV2 {
  return json(statusCode, { error: { code, message } });
}

export function header(event: HttpApiEvent, name: string): string | undefined {
  const headers = event.headers ?? {};
  const key = Object.keys(headers).find((candidate) => candidate.toLowerCase() === name);
  return key === undefined ? undefined : headers[key];
}
