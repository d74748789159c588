import type { Item } from '../items/item.ts';
import {
  decodePastIncidentCursor,
  encodePastIncidentCursor,
  PAST_INCIDENT_SORT_KEY_PREFIX,
  pastIncidentItem,
  pastIncidentOf,
  pastIncidentPartitionKey,
  pastIncidentStateItem,
  pastIncidentStateOf,
  pastIncidentStateSortKey,
  readablePastIncidents,
  TOMBSTONE_MS,
} from '../items/past-incident-item.ts';
import { PAST_INCIDENT_LIMITS, type PastIncidentStore, type UnreadablePastIncident } from '../past-incident-store.ts';
import { type MemoryTable, memoryKeyOf } from './memory-table.ts';

export type MemoryPastIncidentStore = PastIncidentStore & {
  readonly items: ReadonlyMap<string, Item>;
  /** How many items the reads returned, all calls together: what a retrieval costs, as DynamoDB would count it. */
  readonly itemsRead: () => number;
};

/**
 * The past incidents in memory, with the DynamoDB adapter's behaviour (the same items, built and read by the same
 * item module; the same tombstones; the same order, page bounds and expiry check). The contract suite runs against
 * both.
 */
export function createMemoryPastIncidentStore(options: { table?: MemoryTable } = {}): MemoryPastIncidentStore {
  const items: MemoryTable = options.table ?? new Map();
  let read = 0;
  const stateOf = (enterpriseId: string, runId: string) => {
    const stored = items.get(`${pastIncidentPartitionKey(enterpriseId)}|${pastIncidentStateSortKey(runId)}`);
    return stored === undefined ? null : pastIncidentStateOf(stored);
  };
  const put = (item: Item) => items.set(memoryKeyOf(item), structuredClone(item));
  const page = (
    enterpriseId: string,
    limit: number,
    now: number,
    beforeSk?: string,
    onUnreadable?: UnreadablePastIncident,
  ) => {
    const pk = pastIncidentPartitionKey(enterpriseId);
    const keys = [...items.values()]
      .filter((item) => item.pk === pk && item.sk.startsWith(PAST_INCIDENT_SORT_KEY_PREFIX))
      .filter((item) => beforeSk === undefined || item.sk < beforeSk)
      .sort((a, b) => (a.sk < b.sk ? 1 : -1));
    const taken = keys.slice(0, limit);
    read += taken.length;
    const incidents = readablePastIncidents(
      taken.map((item) => structuredClone(item)),
      enterpriseId,
      now,
      onUnreadable,
    );
    // NOTE: like DynamoDB's LastEvaluatedKey: a full page has a cursor, even when nothing follows it.
    const last = taken.at(-1);
    return { incidents, lastSk: taken.length === limit && last !== undefined ? last.sk : null };
  };

  return {
    items,
    itemsRead: () => read,
    async remember(incident) {
      const memory = pastIncidentItem(incident);
      await Promise.resolve();
      if (stateOf(incident.enterpriseId, incident.runId)?.state === 'RETRACTED') return false;
      put(
        pastIncidentStateItem(
          incident.enterpriseId,
          incident.runId,
          { memorySk: memory.sk, expiresAt: incident.expiresAt },
          incident.ratedAt,
        ),
      );
      put(memory);
      return true;
    },
    async retract(enterpriseId, runId, reason, at) {
      await Promise.resolve();
      const state = stateOf(enterpriseId, runId);
      if (state?.state === 'RETRACTED') return false;
      if (state === null && reason === 'FORGOTTEN') return false;
      put(
        pastIncidentStateItem(enterpriseId, runId, { retracted: reason, expiresAt: Date.parse(at) + TOMBSTONE_MS }, at),
      );
      if (state?.memory_sk === undefined || state.memory_sk === null) return false;
      items.delete(`${pastIncidentPartitionKey(enterpriseId)}|${state.memory_sk}`);
      return true;
    },
    async recent(enterpriseId, { limit, now, onUnreadable }) {
      await Promise.resolve();
      const bounded = Math.max(1, Math.min(limit, PAST_INCIDENT_LIMITS.recentWindow));
      return page(enterpriseId, bounded, now, undefined, onUnreadable).incidents;
    },
    async list(enterpriseId, { cursor, limit, now, onUnreadable }) {
      await Promise.resolve();
      const bounded = Math.max(1, Math.min(limit ?? PAST_INCIDENT_LIMITS.pageSize, PAST_INCIDENT_LIMITS.pageSize));
      const start = cursor === undefined ? undefined : decodePastIncidentCursor(cursor);
      const { incidents, lastSk } = page(enterpriseId, bounded, now, start, onUnreadable);
      return { incidents, cursor: lastSk === null ? null : encodePastIncidentCursor(lastSk) };
    },
    async get(enterpriseId, runId, now) {
      await Promise.resolve();
      const state = stateOf(enterpriseId, runId);
      if (state?.state !== 'ACTIVE' || state.memory_sk === null) return null;
      const stored = items.get(`${pastIncidentPartitionKey(enterpriseId)}|${state.memory_sk}`);
      if (stored === undefined) return null;
      const incident = pastIncidentOf(structuredClone(stored), enterpriseId);
      return incident.expiresAt > now ? incident : null;
    },
  };
}
