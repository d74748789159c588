import type { Logger } from '@aws-lambda-powertools/logger';
import { DiagnosisTenantBusyError, safeErrorName } from '@diagnosis/core';
import type { TenantLease, TenantLeaseStore } from '@diagnosis/core/store';
import type middy from '@middy/core';
import type { HandlerContext } from '../lambda/handler-context.ts';

export interface TenantLeaseOptions {
  store: TenantLeaseStore;
  /** The enterprise's cap on runs in progress (TENANT_MAX_CONCURRENT_RUNS). */
  maxConcurrentRuns: number;
  now?: () => number;
  /** Kept past the invocation's own deadline before a lease counts as abandoned (clock skew between hosts). */
  marginMs?: number;
  logger?: Logger;
}

/**
 * Middy middleware: a diagnosis runs only while it holds one of its enterprise's lease slots. Taken after the request
 * is parsed and the tenant authorized (a refused request takes none), held by `<runId>@<awsRequestId>` until the
 * invocation's own deadline plus a margin, and released after the answer and after every error. A crashed or
 * timed-out invocation releases nothing: its slot is reclaimable once the Lambda itself can no longer be running. No slot free: the
 * invocation fails at once with `DiagnosisTenantBusyError`, and the workflow waits and retries (see
 * `DIAGNOSE_RETRIERS`) instead of this Lambda waiting, idle and billed, in a loop.
 */
export function takeTenantLease(
  options: TenantLeaseOptions,
): middy.MiddlewareObj<unknown, unknown, Error, HandlerContext> {
  const now = options.now ?? Date.now;
  const marginMs = options.marginMs ?? 10_000;
  const held = new WeakMap<object, TenantLease>();
  const release = async (request: { context: HandlerContext }) => {
    const lease = held.get(request.context);
    if (lease === undefined) return;
    held.delete(request.context);
    try {
      await options.store.release(lease);
    } catch (error) {
      // NOTE: the answer still goes out; the slot frees itself at its expiry.
      options.logger?.warn('tenant lease release failed', { error: safeErrorName(error), slot: lease.slot });
    }
  };
  return {
    before: async (request) => {
      const diagnose = request.context.diagnoseRequest;
      if (diagnose === undefined) return;
      const lease = await options.store.acquire({
        enterpriseId: diagnose.enterpriseId,
        // NOTE: the invocation, not only the run, holds the slot: a second invocation of a running runId (answered
        // RUN_IN_PROGRESS) must release its own slot, never the one the running invocation holds.
        holder: `${diagnose.runId}@${request.context.awsRequestId}`,
        capacity: options.maxConcurrentRuns,
        expiresAt: now() + request.context.getRemainingTimeInMillis() + marginMs,
        // NOTE: the holder names this invocation, which has held nothing yet: its free first slot takes one write.
        fresh: true,
      });
      if (lease === null) throw new DiagnosisTenantBusyError();
      held.set(request.context, lease);
    },
    after: release,
    onError: release,
  };
}
