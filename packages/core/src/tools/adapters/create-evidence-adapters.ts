import { BedrockAgentRuntimeClient } from '@aws-sdk/client-bedrock-agent-runtime';
import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import type { Pool } from 'mysql2/promise';
import type { EvidenceSettings } from '../../config/evidence-settings.ts';
import type { AdapterResult, EvidenceAdapters, MysqlData } from '../evidence-adapter.ts';
import { createBedrockKnowledgeBaseAdapter } from './bedrock-knowledge-base-adapter.ts';
import { createCloudWatchLogsInsightsAdapter } from './cloudwatch-logs-insights-adapter.ts';
import { createLocalKnowledgeAdapter, loadKnowledgeDocuments } from './local-knowledge-adapter.ts';
import { createLocalLogsAdapter } from './local-logs-adapter.ts';
import { createMysqlAdapter } from './mysql-adapter.ts';
import { loadMysqlCatalog } from './mysql-catalog.ts';
import { createMysqlPool } from './mysql-pool.ts';

/** Clients built once per cold start; tests pass their own. */
export interface EvidenceClients {
  bedrock?: BedrockAgentRuntimeClient;
  cloudwatch?: CloudWatchLogsClient;
  mysqlPool?: Pool;
}

/**
 * Builds the three adapters the settings choose, once per cold start: the knowledge index and the MySQL catalog are
 * loaded (and validated) here, so a bad runbook or catalog fails the cold start, not a run. Without `MYSQL_URL`,
 * `query_mysql` still lists the catalog but answers NOT_CONFIGURED.
 */
export async function createEvidenceAdapters(
  settings: EvidenceSettings,
  clients: EvidenceClients = {},
): Promise<{ evidence: EvidenceAdapters; close: () => Promise<void> }> {
  const lookup_knowledge =
    settings.KNOWLEDGE_BACKEND === 'bedrock'
      ? createBedrockKnowledgeBaseAdapter({
          client: clients.bedrock ?? new BedrockAgentRuntimeClient({ maxAttempts: 1 }),
          knowledgeBaseId: settings.BEDROCK_KNOWLEDGE_BASE_ID ?? '',
        })
      : createLocalKnowledgeAdapter(await loadKnowledgeDocuments(settings.KNOWLEDGE_DIR));

  const query_logs =
    settings.LOGS_BACKEND === 'cloudwatch'
      ? createCloudWatchLogsInsightsAdapter({
          client: clients.cloudwatch ?? new CloudWatchLogsClient({ maxAttempts: 1 }),
          logGroupsByService: settings.LOGS_GROUPS,
          tenantField: settings.LOGS_TENANT_FIELD,
        })
      : createLocalLogsAdapter({ directory: settings.LOGS_DIR, tenantField: settings.LOGS_TENANT_FIELD });

  const catalog = await loadMysqlCatalog(settings.MYSQL_CATALOG_PATH);
  const ownPool =
    clients.mysqlPool === undefined && settings.MYSQL_URL !== undefined
      ? createMysqlPool({ url: settings.MYSQL_URL, connectionLimit: settings.MYSQL_POOL_SIZE })
      : undefined;
  const pool = clients.mysqlPool ?? ownPool;
  const query_mysql =
    pool === undefined
      ? notConfiguredMysql(catalog)
      : createMysqlAdapter({
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

function notConfiguredMysql(catalog: Awaited<ReturnType<typeof loadMysqlCatalog>>): EvidenceAdapters['query_mysql'] {
  return {
    catalog: catalog.map((entry) => ({ name: entry.name, description: entry.description, params: entry.params })),
    async execute(): Promise<AdapterResult<MysqlData>> {
      return { status: 'ERROR', code: 'NOT_CONFIGURED', detail: 'MYSQL_URL is not set' };
    },
  };
}
