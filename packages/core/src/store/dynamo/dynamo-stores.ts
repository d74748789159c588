import type { AuditWriter } from '../audit-writer.ts';
import type { RunStore } from '../run-store.ts';
import { createDynamoAuditWriter, type DynamoAuditWriterOptions } from './dynamo-audit-writer.ts';
import { createDynamoRunStore, type DynamoRunStoreOptions } from './dynamo-run-store.ts';

export type DynamoStoresOptions = DynamoRunStoreOptions & DynamoAuditWriterOptions;

/** A run's run store and audit writer on one table, as one object (two ports: see `createDynamoStores`). */
export type DynamoStores = RunStore & AuditWriter;

/**
 * A run's two stores on one table, as one object: the run store and the audit writer that invocation writes with.
 * For the callers that need both at once (the composition root of Diagnose, the local runner, the eval); a caller
 * that only reads, starts or closes runs takes `createDynamoRunStore`. NOTE: two adapters, two ports; built per
 * run, since the audit writer's queue belongs to one run.
 */
export function createDynamoStores(options: DynamoStoresOptions): DynamoStores {
  return { ...createDynamoRunStore(options), ...createDynamoAuditWriter(options) };
}
