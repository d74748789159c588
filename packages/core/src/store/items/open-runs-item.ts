/**
 * The open-runs item (`TENANT#<enterpriseId>#OPEN` / `RUNS`): the set of an enterprise's QUEUED or RUNNING run ids,
 * `open_run_ids` (a DynamoDB string set, absent once every run ended), beside `entity` `tenant_open_runs`, its
 * `enterprise_id` and the `gsi1` keys that list it. Only the DynamoDB adapter keeps it; the in-memory twin keeps the
 * same sets in a map.
 */
import type { OpenRuns } from '../../access/tenant-admission.ts';

/**
 * The item that admits an enterprise's open runs, one per enterprise (its own partition, so one tenant's flood
 * contends on its own item only). NOTE: every run enters the set in the transaction that creates it and leaves it in
 * the transaction that ends it, so the set is exact by construction.
 */
export const openRunsKey = (enterpriseId: string) => ({ pk: `TENANT#${enterpriseId}#OPEN`, sk: 'RUNS' });
/**
 * The `gsi1` key every open-runs item carries, so the sweeper finds every enterprise with open runs in one Query.
 * NOTE: a session key always starts with `TENANT#`, so this value can never be a session's.
 */
export const OPEN_RUNS_INDEX_KEY = 'OPEN_RUNS';

/**
 * An enterprise's open runs as its item holds them (ids sorted), or null for an item that is not an open-runs item
 * or has no open run. NOTE: an enterprise whose runs all ended keeps its item, with no set: nothing to list.
 */
export function openRunsOf(item: Record<string, unknown>): OpenRuns | null {
  if (item.entity !== 'tenant_open_runs' || typeof item.enterprise_id !== 'string') return null;
  const ids = (item.open_run_ids instanceof Set ? [...item.open_run_ids] : []).filter(
    (id): id is string => typeof id === 'string',
  );
  return ids.length > 0 ? { enterpriseId: item.enterprise_id, runIds: ids.sort() } : null;
}
