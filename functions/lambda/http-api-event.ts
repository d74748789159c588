import type { IamCaller } from '@diagnosis/core/config';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import * as v from 'valibot';

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

/**
 * The IAM caller the authorizer vouches for, or null. NOTE: the route must never work without IAM, even if
 * mis-wired: the authorizer's IAM context must be there and be an object with something in it.
 */
function iamCallerOf(event: HttpApiEvent): IamCaller | null {
  if (typeof event !== 'object' || event === null) return null;
  const context: unknown = (event as { requestContext?: unknown }).requestContext;
  if (typeof context !== 'object' || context === null) return null;
  const authorizer: unknown = (context as { authorizer?: unknown }).authorizer;
  if (typeof authorizer !== 'object' || authorizer === null) return null;
  const iam: unknown = (authorizer as { iam?: unknown }).iam;
  if (typeof iam !== 'object' || iam === null || Array.isArray(iam) || Object.keys(iam).length === 0) return null;
  return iam as IamCaller;
}

const stringRecord = v.optional(v.nullable(v.record(v.string(), v.string())));
/** The fields of the event this service reads, with their types; anything else AWS adds is ignored. */
const httpEventSchema = v.object({
  requestContext: v.object({ http: v.optional(v.object({ method: v.string() })) }),
  headers: stringRecord,
  body: v.optional(v.nullable(v.string())),
  isBase64Encoded: v.optional(v.boolean()),
  pathParameters: stringRecord,
  queryStringParameters: stringRecord,
});

/**
 * The gate every HTTP route passes first: 403 without an IAM caller, 400 `MALFORMED_EVENT` when a field this service
 * reads has the wrong type (a direct invoke can send anything). Returns the caller, or the response to send.
 */
export function admitHttpEvent(
  event: HttpApiEvent,
): { caller: IamCaller; response?: never } | { caller?: never; response: APIGatewayProxyStructuredResultV2 } {
  const caller = iamCallerOf(event);
  if (caller === null) return { response: errorResponse(403, 'FORBIDDEN', 'this route requires IAM authorization') };
  if (!v.is(httpEventSchema, event)) {
    return { response: errorResponse(400, 'MALFORMED_EVENT', 'the event is not a valid HTTP API request') };
  }
  return { caller };
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
