/**
 * `@diagnosis/core/store`: the ports (AuditHook, RunStore, TenantLeaseStore), their adapters on one DynamoDB table,
 * their in-memory twins with the same behaviour, and the item keys, schemas and codec they share. Kept off the package root
 * so the harness can be used without the AWS SDK.
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
export { diagnosisTableDefinition, ensureDiagnosisTable } from './diagnosis-table.ts';
export { createDynamoAuditStore, type DynamoAuditStore, type DynamoAuditStoreOptions } from './dynamo-audit-store.ts';
export { createDynamoFeedbackStore, type DynamoFeedbackStoreOptions } from './dynamo-feedback-store.ts';
export { createDynamoIncidentStore, type DynamoIncidentStoreOptions } from './dynamo-incident-store.ts';
export { createDynamoTenantLeaseStore, type DynamoTenantLeaseStoreOptions } from './dynamo-tenant-lease-store.ts';
export { feedbackItem, feedbackOf, feedbackPartitionKey, feedbackSortKey } from './feedback-items.ts';
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
export {
  completionAttributes,
  newRunItem,
  pseudonymBatchOf,
  pseudonymItem,
  reasoningOf,
  recordOf,
  runOf,
  stepItems,
  toolItem,
  ttlFor,
} from './item-codec.ts';
export {
  createToolSortKeys,
  OPEN_RUNS_INDEX_KEY,
  openRunsKey,
  pseudonymPartitionKey,
  pseudonymSortKey,
  reasoningPartitionKey,
  runKey,
  sessionKey,
  stepSortKey,
  toolSortKey,
} from './item-keys.ts';
export { ITEM_CAPS, type Item, SCHEMA_VERSION } from './item-schemas.ts';
export { createMemoryFeedbackStore, type MemoryFeedbackStore } from './memory-feedback-store.ts';
export { createMemoryIncidentStore, type MemoryIncidentStore } from './memory-incident-store.ts';
export { createMemoryRunStore, type MemoryRunStore, type MemoryRunStoreOptions } from './memory-run-store.ts';
export {
  createMemoryTenantLeaseStore,
  type MemoryTenantLeaseStore,
  type MemoryTenantLeaseStoreOptions,
} from './memory-tenant-lease-store.ts';
export * from './run-store.ts';
export {
  type LeaseRequest,
  leasePartitionKey,
  leaseSortKey,
  MAX_LEASE_CAPACITY,
  type TenantLease,
  type TenantLeaseStore,
} from './tenant-lease-store.ts';
export { createWriteQueue, type WriteQueue } from './write-queue.ts';
