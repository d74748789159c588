import type { AuditWriter } from '../audit-writer.ts';
import { createMemoryAuditWriter, type MemoryAuditWriterOptions } from './memory-audit-writer.ts';
import { createMemoryRunStore, type MemoryRunStore, type MemoryRunStoreOptions } from './memory-run-store.ts';
import type { MemoryTable } from './memory-table.ts';

export type MemoryStoresOptions = Omit<MemoryRunStoreOptions, 'table'> & Omit<MemoryAuditWriterOptions, 'table'>;

/** The in-memory run store and audit writer on one table of their own (`items`), as one object. */
export type MemoryStores = MemoryRunStore & AuditWriter;

/**
 * A run store and its audit writer in memory, sharing one table: the twin of `createDynamoStores`, for local runs
 * without a table and for tests of code that takes both.
 */
export function createMemoryStores(options: MemoryStoresOptions = {}): MemoryStores {
  // NOTE: one table for both, so what the writer writes is what the store reads back.
  const table: MemoryTable = new Map();
  return { ...createMemoryRunStore({ ...options, table }), ...createMemoryAuditWriter({ ...options, table }) };
}
