/**
 * Admission control per enterprise: a bound on the runs that are QUEUED or RUNNING at once. NOTE: the bound is the
 * store's own default, so it holds wherever a store is built — the Lambdas, the command line, the eval and tests —
 * unless the composition root passes another (TENANT_MAX_OPEN_RUNS).
 */

/** Open (QUEUED or RUNNING) runs one enterprise may have by default: see the README, "Operations". */
export const DEFAULT_TENANT_MAX_OPEN_RUNS = 20;
/** The largest bound a deployment may set (one open-runs item holds the ids; 1,000 ids stay far under 400 KB). */
export const MAX_TENANT_MAX_OPEN_RUNS = 1_000;

/** The seconds a caller refused with TENANT_BUSY is told to wait (`Retry-After`). */
export const TENANT_BUSY_RETRY_AFTER_SECONDS = 30;

/** An enterprise's open runs as the admission item holds them (for the sweeper and operators). */
export interface OpenRuns {
  enterpriseId: string;
  runIds: string[];
}

export function checkMaxOpenRuns(maxOpenRuns: number): number {
  if (!Number.isSafeInteger(maxOpenRuns) || maxOpenRuns < 1 || maxOpenRuns > MAX_TENANT_MAX_OPEN_RUNS) {
    throw new RangeError(`maxOpenRuns is an integer from 1 to ${MAX_TENANT_MAX_OPEN_RUNS}`);
  }
  return maxOpenRuns;
}
