/**
 * `@diagnosis/core/store`: the ports (AuditHook, AuditWriter, RunStore, TenantLeaseStore, FeedbackStore,
 * IncidentStore), their adapters on one DynamoDB table (`dynamo/`), their in-memory twins with the same behaviour
 * (`memory/`), and one module per item kind (`items/`: its schema, keys and both directions). Kept off the package
 * root so the harness can be used without the AWS SDK.
 */

export {
  checkMaxOpenRuns,
  DEFAULT_TENANT_MAX_OPEN_RUNS,
  MAX_TENANT_MAX_OPEN_RUNS,
  type OpenRuns,
  TENANT_BUSY_RETRY_AFTER_SECONDS,
} from '../access/tenant-admission.ts';
export * from '../errors.ts';
export { DEFAULT_AUDIT_WRITES_IN_FLIGHT, MAX_AUDIT_WRITES_IN_FLIGHT } from '../run/audit-write-limits.ts';
export type { AuditWriter, RunWriteBudget } from './audit-writer.ts';
export * from './change-store.ts';
export { diagnosisTableDefinition, ensureDiagnosisTable } from './diagnosis-table.ts';
export {
  createDynamoClient,
  type DynamoClientEnvironment,
  type DynamoClientTimeouts,
  dynamoRequestHandler,
} from './dynamo/create-dynamo-client.ts';
export { createDynamoAuditWriter, type DynamoAuditWriterOptions } from './dynamo/dynamo-audit-writer.ts';
export { createDynamoChangeStore, type DynamoChangeStoreOptions } from './dynamo/dynamo-change-store.ts';
export { createDynamoFeedbackStore, type DynamoFeedbackStoreOptions } from './dynamo/dynamo-feedback-store.ts';
export { createDynamoIncidentStore, type DynamoIncidentStoreOptions } from './dynamo/dynamo-incident-store.ts';
export {
  createDynamoPastIncidentStore,
  type DynamoPastIncidentStoreOptions,
} from './dynamo/dynamo-past-incident-store.ts';
export { createDynamoRunStore, type DynamoRunStoreOptions } from './dynamo/dynamo-run-store.ts';
export { createDynamoStores, type DynamoStores, type DynamoStoresOptions } from './dynamo/dynamo-stores.ts';
export {
  createDynamoTenantLeaseStore,
  type DynamoTenantLeaseStoreOptions,
} from './dynamo/dynamo-tenant-lease-store.ts';
export * from './feedback-store.ts';
export {
  type IncidentEventRecord,
  type IncidentRef,
  type IncidentStore,
  incidentEventsPartitionKey,
  incidentKey,
  incidentSessionId,
  MAX_STORED_INCIDENT_EVENTS,
  type StoredIncident,
  webhookEventKey,
} from './incident-store.ts';
export { changePartitionKey } from './items/change-item.ts';
export { completionAttributes } from './items/completion-attributes.ts';
export { feedbackItem, feedbackOf, feedbackPartitionKey, feedbackSortKey } from './items/feedback-item.ts';
export {
  ITEM_BASE_ENTRIES,
  ITEM_CAPS,
  type Item,
  SCHEMA_VERSION,
  ttlFor,
  validatedItem,
  wellFormed,
} from './items/item.ts';
export { stepItems } from './items/model-step-items.ts';
export { OPEN_RUNS_INDEX_KEY, openRunsKey } from './items/open-runs-item.ts';
export { pastIncidentPartitionKey } from './items/past-incident-item.ts';
export {
  pseudonymBatchOf,
  pseudonymItem,
  pseudonymPartitionKey,
  pseudonymSortKey,
} from './items/pseudonym-item.ts';
export { reasoningOf, reasoningPartitionKey } from './items/reasoning-item.ts';
export { newRunItem, runKey, runOf, sessionKey } from './items/run-item.ts';
export { recordOf } from './items/run-record.ts';
export { stepSortKey } from './items/step-item.ts';
export { createToolSortKeys, toolItem, toolSortKey } from './items/tool-item.ts';
export { createMemoryAuditWriter, type MemoryAuditWriterOptions } from './memory/memory-audit-writer.ts';
export { createMemoryChangeStore, type MemoryChangeStore } from './memory/memory-change-store.ts';
export { createMemoryFeedbackStore, type MemoryFeedbackStore } from './memory/memory-feedback-store.ts';
export { createMemoryIncidentStore, type MemoryIncidentStore } from './memory/memory-incident-store.ts';
export {
  createMemoryPastIncidentStore,
  type MemoryPastIncidentStore,
} from './memory/memory-past-incident-store.ts';
export { createMemoryRunStore, type MemoryRunStore, type MemoryRunStoreOptions } from './memory/memory-run-store.ts';
export { createMemoryStores, type MemoryStores, type MemoryStoresOptions } from './memory/memory-stores.ts';
export type { MemoryTable } from './memory/memory-table.ts';
export {
  createMemoryTenantLeaseStore,
  type MemoryTenantLeaseStore,
  type MemoryTenantLeaseStoreOptions,
} from './memory/memory-tenant-lease-store.ts';
export * from './past-incident-store.ts';
export * from './run-store.ts';
export {
  firstCandidate,
  type LeaseRequest,
  leasePartitionKey,
  leaseSortKey,
  MAX_LEASE_CAPACITY,
  type TenantLease,
  type TenantLeaseStore,
} from './tenant-lease-store.ts';
export { createWriteQueue, type WriteQueue } from './write-queue.ts';
