/**
 * `@diagnosis/core/store`: the audit hook and run store on one DynamoDB table, and the item formats shared with the
 * in-memory store of the tests. Kept off the package root so the harness can be used without the AWS SDK.
 */
export * from './audit-items.ts';
export { diagnosisTableDefinition, ensureDiagnosisTable } from './diagnosis-table.ts';
export { createDynamoAuditStore, type DynamoAuditStore, type DynamoAuditStoreOptions } from './dynamo-audit-store.ts';
export { buildPreviousTurn } from './previous-turn.ts';
export * from './run-store.ts';
