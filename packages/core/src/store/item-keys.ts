import { RunStoreError } from '../errors.ts';
import { isToolCallId } from '../run/ids.ts';

/** The run item's key; the run's steps and tool invocations share its partition. */
export const runKey = (runId: string) => ({ pk: `RUN#${runId}`, sk: 'RUN' });
/**
 * The partition of a run's raw reasoning. NOTE: it is its own partition key so that IAM can keep every role but the
 * reasoning reader away from it with a `dynamodb:LeadingKeys` condition (which matches partition keys only).
 */
export const reasoningPartitionKey = (runId: string) => `REASONING#${runId}`;
export const stepSortKey = (stepNumber: number) => `STEP#${String(stepNumber).padStart(4, '0')}`;
export const toolSortKey = (toolCallId: string) => `TOOL#${toolCallId}`;

/**
 * The sort keys of tool invocation items. The canonical record of an id is `TOOL#<id>`; the harness's rejection of a
 * reused id is kept beside it as `TOOL#<id>#REUSED#001`, … so the first record stays the canonical one. A valid id
 * never holds `#`, so no model-chosen id can take the place of a reuse record; an id that is not valid (refused by
 * the harness, or one this store is handed anyway) is kept under `TOOLID#INVALID#0001`, … and never in a key.
 */
export function createToolSortKeys() {
  const reuseCounts = new Map<string, number>();
  let invalidCount = 0;
  return (event: { runId: string; toolCallId: string; code: string | null }): string => {
    if (!isToolCallId(event.toolCallId) || event.code === 'INVALID_TOOL_CALL_ID') {
      invalidCount += 1;
      return `TOOLID#INVALID#${String(invalidCount).padStart(4, '0')}`;
    }
    const key = toolSortKey(event.toolCallId);
    if (event.code !== 'DUPLICATE_TOOL_CALL_ID') return key;
    const reuse = (reuseCounts.get(`${event.runId}|${event.toolCallId}`) ?? 0) + 1;
    reuseCounts.set(`${event.runId}|${event.toolCallId}`, reuse);
    return `${key}#REUSED#${String(reuse).padStart(3, '0')}`;
  };
}

/**
 * The session index key. NOTE: it names the enterprise too: a session id is the caller's choice, so two tenants may
 * use the same one, and a follow-up must only ever find runs of its own tenant.
 */
export const sessionKey = (enterpriseId: string, sessionId: string) => `TENANT#${enterpriseId}#SESSION#${sessionId}`;

/**
 * The item that admits an enterprise's open runs: the set of its QUEUED or RUNNING run ids, one item per enterprise
 * (its own partition, so one tenant's flood contends on its own item only). NOTE: every run enters the set in the
 * transaction that creates it and leaves it in the transaction that ends it, so the set is exact by construction.
 */
export const openRunsKey = (enterpriseId: string) => ({ pk: `TENANT#${enterpriseId}#OPEN`, sk: 'RUNS' });
/**
 * The `gsi1` key every open-runs item carries, so the sweeper finds every enterprise with open runs in one Query.
 * NOTE: a session key always starts with `TENANT#`, so this value can never be a session's.
 */
export const OPEN_RUNS_INDEX_KEY = 'OPEN_RUNS';

/** Every sort key this store writes (and `REASONING#0001`, … of reasoning items written before their own partition). */
const SORT_KEY_PATTERN =
  /^(RUN|STEP#\d{4}|REASONING#\d{4}|TOOL#[A-Za-z0-9_.:-]{1,200}(#REUSED#\d{3})?|TOOLID#INVALID#\d{4})$/;

/** The opaque page cursor of a partition: its last key. */
export function encodeCursor(key: { pk: string; sk: string }): string {
  return Buffer.from(JSON.stringify({ pk: key.pk, sk: key.sk })).toString('base64url');
}

/**
 * The key a caller's cursor stands for. NOTE: only ever a key this store could have written, of the same partition:
 * anything else (another run's partition, an empty or oversized sort key DynamoDB itself would refuse) is refused
 * with `CORRUPT_ITEM` rather than queried.
 */
export function decodeCursor(cursor: string, pk: string): { pk: string; sk: string } {
  try {
    const key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Record<string, unknown>;
    if (key.pk === pk && typeof key.sk === 'string' && SORT_KEY_PATTERN.test(key.sk) && Object.keys(key).length === 2) {
      return { pk, sk: key.sk };
    }
  } catch {
    // fall through
  }
  throw new RunStoreError('CORRUPT_ITEM', 'invalid cursor');
}
