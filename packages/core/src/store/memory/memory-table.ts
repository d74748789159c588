import type { Item } from '../items/item.ts';

/**
 * The in-memory twin of the diagnosis table: every item, keyed `pk|sk`, exactly as the DynamoDB adapters would have
 * written it. NOTE: the memory run store and audit writer of one run share one, as the DynamoDB ones share a table.
 */
export type MemoryTable = Map<string, Item>;

/** An item's key in a {@link MemoryTable}. */
export const memoryKeyOf = (item: { pk: string; sk: string }) => `${item.pk}|${item.sk}`;
