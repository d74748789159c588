import type middy from '@middy/core';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { HandlerContext } from '../lambda/handler-context.ts';
import { admitHttpEvent, type HttpApiEvent, isHttpApiEvent } from '../lambda/http-api-event.ts';

/**
 * The gate of every HTTP route: an API Gateway event must carry the IAM authorizer's caller (403 `FORBIDDEN`
 * otherwise, even if the route were mis-wired) and fields of the right types (400 `MALFORMED_EVENT`); the caller is
 * put on the context. `httpOnly`: anything that is not an HTTP API event is refused too (the read functions);
 * otherwise it passes untouched (the Diagnose function's Step Functions payload, trusted as a whole).
 */
export function requireIamCaller(
  options: { httpOnly?: boolean } = {},
): middy.MiddlewareObj<unknown, unknown, Error, HandlerContext> {
  return {
    before: (request) => {
      if (!isHttpApiEvent(request.event)) {
        if (options.httpOnly !== true) return;
      }
      const admitted = admitHttpEvent(request.event as HttpApiEvent);
      if (admitted.response !== undefined) return admitted.response as APIGatewayProxyStructuredResultV2;
      request.context.caller = admitted.caller;
      return undefined;
    },
  };
}
