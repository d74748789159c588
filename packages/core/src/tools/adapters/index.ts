/**
 * `@diagnosis/core/adapters`: the real evidence adapters (the only code that imports AWS SDKs and drivers), chosen by
 * configuration in `functions/`. Kept off the package root so the harness can be used without them.
 */

export {
  type BedrockKnowledgeBaseAdapterOptions,
  createBedrockKnowledgeBaseAdapter,
} from './bedrock-knowledge-base-adapter.ts';
export { tokenizeMixedText } from './cjk-tokenizer.ts';
export {
  buildInsightsQuery,
  type CloudWatchLogsInsightsAdapterOptions,
  createCloudWatchLogsInsightsAdapter,
} from './cloudwatch-logs-insights-adapter.ts';
export { createEvidenceAdapters, type EvidenceClients } from './create-evidence-adapters.ts';
export {
  buildKnowledgeIndexData,
  createKnowledgeIndex,
  type KnowledgeIndex,
  type KnowledgeIndexData,
} from './knowledge-index.ts';
export {
  decodeKnowledgeIndexFile,
  encodeKnowledgeIndexFile,
  type KnowledgeIndexFile,
  parseKnowledgeIndexFile,
} from './knowledge-index-file.ts';
export {
  buildKnowledgeIndexFile,
  createLocalKnowledgeAdapter,
  KnowledgeBaseError,
  type KnowledgeDocument,
  loadKnowledgeDocuments,
  loadKnowledgeIndexFile,
  parseRunbook,
  parseSimpleFrontMatter,
  runbookFields,
  splitPassages,
} from './local-knowledge-adapter.ts';
export { createLocalLogsAdapter, type LocalLogsAdapterOptions } from './local-logs-adapter.ts';
export {
  createMysqlAdapter,
  limitStatement,
  type MysqlAdapterOptions,
  type MysqlDialect,
  sessionLimits,
} from './mysql-adapter.ts';
export {
  loadMysqlCatalog,
  type MysqlCatalogEntry,
  MysqlCatalogError,
  parseMysqlCatalog,
  toPositional,
} from './mysql-catalog.ts';
export { createMysqlPool, type MysqlPoolOptions } from './mysql-pool.ts';
