import { DiagnosisInputError } from '@diagnosis/core';
import { canAccessTenant, type TenantAccessPolicy } from '@diagnosis/core/config';
import type middy from '@middy/core';
import type { HandlerContext } from '../lambda/handler-context.ts';

/**
 * The tenant check of `POST /diagnoses`: the HTTP caller must be allowed the request's enterprise by the tenant access
 * policy (403 `FORBIDDEN_TENANT`), before anything is written or sent to a model. A Step Functions payload has no
 * caller on the context and passes: whoever may start the workflow is trusted.
 */
export function authorizeTenant(
  policy: TenantAccessPolicy,
): middy.MiddlewareObj<unknown, unknown, Error, HandlerContext> {
  return {
    before: ({ context }) => {
      const request = context.diagnoseRequest;
      if (context.caller === undefined || request === undefined) return;
      if (!canAccessTenant(policy, context.caller, request.enterpriseId)) {
        throw new DiagnosisInputError('FORBIDDEN_TENANT', 'this caller may not diagnose this enterprise');
      }
    },
  };
}
