import type { BedrockAgentRuntimeClient } from '@aws-sdk/client-bedrock-agent-runtime';
import type { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import type { Pool } from 'mysql2/promise';
import type { EvidenceSettings } from '../../config/evidence-settings.ts';
import type { AdapterResult, EvidenceAdapters, MysqlData, MysqlQueryDescriptor } from '../evidence-adapter.ts';
import {
  createLocalKnowledgeAdapter,
  loadKnowledgeDocuments,
  loadKnowledgeIndexFile,
} from './local-knowledge-adapter.ts';
import { createLocalLogsAdapter } from './local-logs-adapter.ts';
import { readMysqlCatalogDescriptors } from './mysql-catalog-descriptors.ts';

/** Clients built once per cold start; tests pass their own. */
export interface EvidenceClients {
  bedrock?: BedrockAgentRuntimeClient;
  cloudwatch?: CloudWatchLogsClient;
  mysqlPool?: Pool;
}

/**
 * Builds the three adapters the settings choose, once per cold start: the runbooks or the knowledge index file (header
 * and checksum) and the MySQL catalog are loaded and validated here, so a bad runbook, index or catalog fails the cold
 * start, not a run; the knowledge index itself is built or decoded on the first lookup. Without `MYSQL_URL`,
 * `query_mysql` still lists the catalog but answers NOT_CONFIGURED.
 */
export async function createEvidenceAdapters(
  settings: EvidenceSettings,
  clients: EvidenceClients = {},
): Promise<{ evidence: EvidenceAdapters; close: () => Promise<void> }> {
  // NOTE: the AWS clients, mysql2 and the SQL grammar are imported only when the settings use them, so a bundle
  // split into chunks loads at cold start only what this configuration needs.
  let lookup_knowledge: EvidenceAdapters['lookup_knowledge'];
  if (settings.KNOWLEDGE_BACKEND === 'bedrock') {
    const [{ BedrockAgentRuntimeClient }, { createBedrockKnowledgeBaseAdapter }] = await Promise.all([
      import('@aws-sdk/client-bedrock-agent-runtime'),
      import('./bedrock-knowledge-base-adapter.ts'),
    ]);
    lookup_knowledge = createBedrockKnowledgeBaseAdapter({
      client: clients.bedrock ?? new BedrockAgentRuntimeClient({ maxAttempts: 1 }),
      knowledgeBaseId: settings.BEDROCK_KNOWLEDGE_BASE_ID ?? '',
    });
  } else if (settings.KNOWLEDGE_INDEX_PATH !== undefined) {
    lookup_knowledge = createLocalKnowledgeAdapter(await loadKnowledgeIndexFile(settings.KNOWLEDGE_INDEX_PATH));
  } else {
    lookup_knowledge = createLocalKnowledgeAdapter(await loadKnowledgeDocuments(settings.KNOWLEDGE_DIR));
  }

  let query_logs: EvidenceAdapters['query_logs'];
  if (settings.LOGS_BACKEND === 'cloudwatch') {
    const [{ CloudWatchLogsClient }, { createCloudWatchLogsInsightsAdapter }] = await Promise.all([
      import('@aws-sdk/client-cloudwatch-logs'),
      import('./cloudwatch-logs-insights-adapter.ts'),
    ]);
    query_logs = createCloudWatchLogsInsightsAdapter({
      client: clients.cloudwatch ?? new CloudWatchLogsClient({ maxAttempts: 1 }),
      logGroupsByService: settings.LOGS_GROUPS,
      tenantField: settings.LOGS_TENANT_FIELD,
    });
  } else {
    query_logs = createLocalLogsAdapter({ directory: settings.LOGS_DIR, tenantField: settings.LOGS_TENANT_FIELD });
  }

  if (clients.mysqlPool === undefined && settings.MYSQL_URL === undefined) {
    // Without a database the catalog is only described to the model; its SQL is parsed where it can run.
    return {
      evidence: {
        lookup_knowledge,
        query_logs,
        query_mysql: notConfiguredMysql(await readMysqlCatalogDescriptors(settings.MYSQL_CATALOG_PATH)),
      },
      close: async () => undefined,
    };
  }
  const [{ createMysqlAdapter }, { loadMysqlCatalog }, { createMysqlPool }] = await Promise.all([
    import('./mysql-adapter.ts'),
    import('./mysql-catalog.ts'),
    import('./mysql-pool.ts'),
  ]);
  const catalog = await loadMysqlCatalog(settings.MYSQL_CATALOG_PATH);
  const ownPool =
    clients.mysqlPool === undefined && settings.MYSQL_URL !== undefined
      ? createMysqlPool({ url: settings.MYSQL_URL, connectionLimit: settings.MYSQL_POOL_SIZE })
      : undefined;
  const pool = clients.mysqlPool ?? (ownPool as Pool);
  const query_mysql = createMysqlAdapter({
    pool,
    catalog,
    dialect: settings.MYSQL_DIALECT,
    statementTimeoutMs: settings.MYSQL_STATEMENT_TIMEOUT_MS,
  });
  return {
    evidence: { lookup_knowledge, query_logs, query_mysql },
    close: async () => {
      await ownPool?.end();
    },
  };
}

function notConfiguredMysql(catalog: readonly MysqlQueryDescriptor[]): EvidenceAdapters['query_mysql'] {
  return {
    catalog,
    async execute(): Promise<AdapterResult<MysqlData>> {
      return { status: 'ERROR', code: 'NOT_CONFIGURED', detail: 'MYSQL_URL is not set' };
    },
  };
}
