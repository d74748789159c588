import { checkMaxOpenRuns, DEFAULT_TENANT_MAX_OPEN_RUNS } from '../../access/tenant-admission.ts';
import { DiagnosisTenantBusyError, RunStoreError } from '../../errors.ts';
import { completionAttributes, progressAttributes } from '../items/completion-attributes.ts';
import type { Item } from '../items/item.ts';
import { pseudonymBatchOf, pseudonymItem, pseudonymPartitionKey } from '../items/pseudonym-item.ts';
import { reasoningOf, reasoningPartitionKey } from '../items/reasoning-item.ts';
import { newRunItem, runKey, runOf, sessionKey } from '../items/run-item.ts';
import { recordOf } from '../items/run-record.ts';
import { decodeCursor, encodeCursor } from '../page-cursor.ts';
import { isPublishedDiagnosis, type RunStore, type StartRunInput } from '../run-store.ts';
import { type MemoryTable, memoryKeyOf } from './memory-table.ts';

export interface MemoryRunStoreOptions {
  now?: () => number;
  /** Days every item of a run is kept (its `ttl`; nothing expires in memory, the value is only recorded). */
  retentionDays?: number;
  /** Days a run's pseudonym map is kept, for batches `appendPseudonyms` adds (only recorded; default 30). */
  pseudonymRetentionDays?: number;
  /** Runs read per page by `findPreviousRun`. */
  sessionPageSize?: number;
  /** Open (QUEUED or RUNNING) runs one enterprise may have (default {@link DEFAULT_TENANT_MAX_OPEN_RUNS}). */
  maxOpenRuns?: number;
  /** The table it keeps its items in (default: a table of its own); its audit writer writes to the same one. */
  table?: MemoryTable;
}

export type MemoryRunStore = RunStore & {
  /** Every item the store holds, keyed `pk|sk`, exactly as the DynamoDB adapters would have written it. */
  readonly items: ReadonlyMap<string, Item>;
};

/**
 * The run store in memory: a product feature, not a test double. Local runs use it when no table is at hand, and
 * users test their own code against it. It has the behaviour of the DynamoDB adapter (`createDynamoRunStore`): the
 * same items (built by the same item modules, with the same caps and schemas), conditional writes, admission of open
 * runs, ordered pages with cursors, the same `findPreviousRun` selection. NOTE: the shared contract suite
 * (`test/contract/run-store-contract.ts`) runs against both, so the twin cannot drift.
 */
export function createMemoryRunStore(options: MemoryRunStoreOptions = {}): MemoryRunStore {
  const items: MemoryTable = options.table ?? new Map<string, Item>();
  const now = options.now ?? Date.now;
  const retentionDays = options.retentionDays ?? 90;
  const pageSize = options.sessionPageSize ?? 25;
  const maxOpenRuns = checkMaxOpenRuns(options.maxOpenRuns ?? DEFAULT_TENANT_MAX_OPEN_RUNS);
  /** Each enterprise's open run ids: the twin of the DynamoDB adapter's admission items. */
  const openRuns = new Map<string, Set<string>>();
  const forget = (enterpriseId: string, runId: string) => openRuns.get(enterpriseId)?.delete(runId);

  async function putNewRun(
    input: StartRunInput,
    status: 'QUEUED' | 'RUNNING',
    deadlineAt?: number,
    executionArn?: string,
  ) {
    const item = newRunItem(input, now(), retentionDays, status, deadlineAt, executionArn);
    await Promise.resolve();
    const existing = items.get(memoryKeyOf(item));
    if (existing !== undefined) return { started: false, run: runOf(existing) };
    const open = openRuns.get(input.enterpriseId) ?? new Set<string>();
    if (open.size >= maxOpenRuns) throw new DiagnosisTenantBusyError('open');
    open.add(input.runId);
    openRuns.set(input.enterpriseId, open);
    items.set(memoryKeyOf(item), item);
    return { started: true, run: runOf(item) };
  }

  const store: MemoryRunStore = {
    items,
    startRun(input, options = {}) {
      return putNewRun(input, 'RUNNING', options.deadlineAt, options.executionArn);
    },
    queueRun(input, options = {}) {
      return putNewRun(input, 'QUEUED', undefined, options.executionArn);
    },
    async claimQueuedRun(runId, deadlineAt, options = {}) {
      await Promise.resolve();
      const key = memoryKeyOf(runKey(runId));
      const existing = items.get(key);
      if (existing === undefined || existing.status !== 'QUEUED' || typeof existing.cancel_requested_at === 'string') {
        return null;
      }
      const stored = typeof existing.execution_arn === 'string' ? existing.execution_arn : null;
      if (options.owner !== undefined && stored !== null && stored !== options.owner) return null;
      const { request } = options;
      if (
        request !== undefined &&
        (existing.enterprise_id !== request.enterpriseId ||
          existing.session_id !== request.sessionId ||
          existing.query !== request.query ||
          (existing.continue_session ?? false) !== request.continueSession)
      ) {
        return null;
      }
      const claimed = {
        ...existing,
        status: 'RUNNING',
        deadline_at: new Date(deadlineAt).toISOString(),
        heartbeat_at: new Date(now()).toISOString(),
      };
      items.set(key, claimed);
      return runOf(claimed);
    },
    async requestCancel(runId, queuedOutcome) {
      await Promise.resolve();
      const key = memoryKeyOf(runKey(runId));
      const existing = items.get(key);
      if (existing === undefined) return null;
      const at = new Date(now()).toISOString();
      if (existing.status === 'QUEUED') {
        items.set(key, { ...existing, ...completionAttributes(queuedOutcome, now()), cancel_requested_at: at });
        forget(String(existing.enterprise_id), runId);
      } else if (existing.status === 'RUNNING' && typeof existing.cancel_requested_at !== 'string') {
        items.set(key, { ...existing, cancel_requested_at: at });
      }
      return store.getRun(runId);
    },
    async isCancelRequested(runId) {
      await Promise.resolve();
      return typeof items.get(memoryKeyOf(runKey(runId)))?.cancel_requested_at === 'string';
    },
    async updateProgress(runId, live) {
      await Promise.resolve();
      const key = memoryKeyOf(runKey(runId));
      const existing = items.get(key);
      if (existing?.status === 'RUNNING') items.set(key, { ...existing, ...progressAttributes(live, now()) });
    },
    async heartbeat(runId) {
      await Promise.resolve();
      const key = memoryKeyOf(runKey(runId));
      const existing = items.get(key);
      if (existing?.status !== 'RUNNING') return false;
      items.set(key, { ...existing, heartbeat_at: new Date(now()).toISOString() });
      return true;
    },
    async completeRun(runId, outcome, options = {}) {
      const attributes = completionAttributes(outcome, now());
      const key = memoryKeyOf(runKey(runId));
      const existing = items.get(key);
      const beat = typeof existing?.heartbeat_at === 'string' ? existing.heartbeat_at : null;
      if (
        existing === undefined ||
        existing.status !== 'RUNNING' ||
        (options.ifHeartbeatAt !== undefined && options.ifHeartbeatAt !== beat)
      ) {
        throw new RunStoreError('RUN_NOT_RUNNING', 'the run is not running (unknown, or already completed)');
      }
      items.set(key, { ...existing, ...attributes });
      forget(String(existing.enterprise_id), runId);
    },
    async listOpenRuns() {
      return [...openRuns.entries()]
        .map(([enterpriseId, ids]) => ({ enterpriseId, runIds: [...ids].sort() }))
        .filter((open) => open.runIds.length > 0)
        .sort((a, b) => (a.enterpriseId < b.enterpriseId ? -1 : 1));
    },
    async forgetOpenRun(enterpriseId, runId) {
      forget(enterpriseId, runId);
    },
    async getRun(runId) {
      const item = items.get(memoryKeyOf(runKey(runId)));
      return item === undefined ? null : runOf(item);
    },
    async listRunRecords(runId, page = {}) {
      const result = pageOf(runKey(runId).pk, page, (item) => item.entity !== 'agent_reasoning_audit');
      return { records: result.items.map(recordOf), cursor: result.cursor };
    },
    async listReasoning(runId, page = {}) {
      const result = pageOf(reasoningPartitionKey(runId), page, () => true);
      return { records: result.items.map(reasoningOf), cursor: result.cursor };
    },
    async listPseudonyms(runId, page = {}) {
      const result = pageOf(pseudonymPartitionKey(runId), page, () => true);
      return { records: result.items.map(pseudonymBatchOf), cursor: result.cursor };
    },
    async appendPseudonyms(batch, runCreatedAt) {
      await Promise.resolve();
      const item = pseudonymItem(batch, Date.parse(runCreatedAt), options.pseudonymRetentionDays ?? 30);
      if (items.has(memoryKeyOf(item))) return false;
      items.set(memoryKeyOf(item), item);
      return true;
    },
    async findPreviousRun(enterpriseId, sessionId) {
      const runs = [...items.values()]
        .filter((item) => item.entity === 'run' && item.gsi1pk === sessionKey(enterpriseId, sessionId))
        .sort((a, b) => (String(a.gsi1sk) < String(b.gsi1sk) ? 1 : -1));
      for (let start = 0; start < runs.length; start += pageSize) {
        for (const item of runs.slice(start, start + pageSize)) {
          const run = runOf(item);
          if (run.enterpriseId !== enterpriseId || run.sessionId !== sessionId) continue;
          if (isPublishedDiagnosis(run)) return run;
        }
      }
      return null;
    },
  };
  return store;

  function pageOf(pk: string, page: { cursor?: string; limit?: number }, visible: (item: Item) => boolean) {
    const limit = page.limit ?? 100;
    const after = page.cursor === undefined ? undefined : decodeCursor(page.cursor, pk).sk;
    const matching = [...items.values()]
      .filter((item) => item.pk === pk && visible(item))
      .sort((a, b) => (a.sk < b.sk ? -1 : 1))
      .filter((item) => after === undefined || item.sk > after);
    const selected = matching.slice(0, limit);
    const last = selected.at(-1);
    return {
      items: selected,
      cursor: matching.length > limit && last !== undefined ? encodeCursor({ pk, sk: last.sk }) : null,
    };
  }
}
