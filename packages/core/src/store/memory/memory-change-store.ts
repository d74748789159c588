import { CHANGE_LIMITS, type ChangeStore, changeMatches } from '../change-store.ts';
import { changeItems, changeOf, changePartitionKey, changeSortKeyFrom, changeSortKeyTo } from '../items/change-item.ts';
import type { Item } from '../items/item.ts';
import { type MemoryTable, memoryKeyOf } from './memory-table.ts';

export type MemoryChangeStore = ChangeStore & { readonly items: ReadonlyMap<string, Item> };

/**
 * The changes in memory, with the DynamoDB adapter's behaviour (the same items, built and read by the same item
 * module; the same claim; the same order, scan bound and filters). The contract suite runs against both.
 */
export function createMemoryChangeStore(
  options: { table?: MemoryTable; retentionDays?: number } = {},
): MemoryChangeStore {
  const items: MemoryTable = options.table ?? new Map();
  const retentionDays = options.retentionDays ?? CHANGE_LIMITS.retentionDays;
  return {
    items,
    async record(change) {
      const built = changeItems(change, retentionDays);
      await Promise.resolve();
      if (items.has(memoryKeyOf(built.claim)) || items.has(memoryKeyOf(built.change))) return 'DUPLICATE';
      items.set(memoryKeyOf(built.claim), structuredClone(built.claim));
      items.set(memoryKeyOf(built.change), structuredClone(built.change));
      return 'STORED';
    },
    async list(enterpriseId, query) {
      await Promise.resolve();
      const pk = changePartitionKey(enterpriseId);
      const from = changeSortKeyFrom(query.fromMs);
      const to = changeSortKeyTo(query.toMs);
      const stored = [...items.values()]
        .filter((item) => item.pk === pk && item.sk >= from && item.sk <= to)
        .sort((a, b) => (a.sk < b.sk ? 1 : -1))
        .slice(0, CHANGE_LIMITS.scan)
        .map((item) => changeOf(structuredClone(item), enterpriseId));
      const matching = stored.filter((change) => changeMatches(change, query));
      const limit = Math.max(1, Math.min(query.limit, CHANGE_LIMITS.rows));
      return { matched: matching.length, changes: matching.slice(0, limit) };
    },
  };
}
