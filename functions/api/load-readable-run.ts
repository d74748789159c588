import { DiagnosisInputError, isSessionId, type RunStore } from '@diagnosis/core';
import { canAccessTenant, type TenantAccessPolicy } from '@diagnosis/core/config';
import type middy from '@middy/core';
import type { HandlerContext } from '../lambda/handler-context.ts';
import type { HttpApiEvent } from '../lambda/http-api-event.ts';

/**
 * Loads the run a read route names and puts it on the context, if this caller may see it. NOTE: a run of an
 * enterprise the caller may not use answers exactly like a missing one (404 `RUN_NOT_FOUND`), so run ids cannot be
 * probed across tenants. Use after `requireIamCaller`.
 */
export function loadReadableRun(
  store: Pick<RunStore, 'getRun'>,
  policy: TenantAccessPolicy,
): middy.MiddlewareObj<HttpApiEvent, unknown, Error, HandlerContext> {
  return {
    before: async ({ event, context }) => {
      const runId = event.pathParameters?.runId;
      // NOTE: the wider pattern of ids stored before run ids had to be execution names: a read is harmless.
      if (!isSessionId(runId)) throw new DiagnosisInputError('INVALID_RUN_ID', 'the run id is not valid');
      const run = await store.getRun(runId);
      if (run === null || context.caller === undefined || !canAccessTenant(policy, context.caller, run.enterpriseId)) {
        throw new DiagnosisInputError('RUN_NOT_FOUND', 'no such run');
      }
      context.readableRun = run;
    },
  };
}
