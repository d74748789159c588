import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  buildKnowledgeIndexFile,
  createEvidenceAdapters,
  KnowledgeBaseError,
  loadKnowledgeDocuments,
} from '@diagnosis/core/adapters';
import { parseEvidenceSettings, SettingsError } from '@diagnosis/core/config';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../support/temp-dir.ts';
import { examplePath, toolCall } from '../../../support/tool-call.ts';

const local = {
  KNOWLEDGE_DIR: examplePath('knowledge'),
  LOGS_DIR: examplePath('logs'),
  MYSQL_CATALOG_PATH: examplePath('mysql/catalog.json'),
};

describe('parseEvidenceSettings', () => {
  it('defaults to the local backends on the example world', () => {
    expect(parseEvidenceSettings({})).toMatchObject({
      KNOWLEDGE_BACKEND: 'local',
      KNOWLEDGE_DIR: 'examples/knowledge',
      LOGS_BACKEND: 'local',
      LOGS_DIR: 'examples/logs',
      LOGS_GROUPS: {},
      MYSQL_DIALECT: 'auto',
      MYSQL_STATEMENT_TIMEOUT_MS: 5_000,
      MYSQL_POOL_SIZE: 4,
    });
  });

  it('parses the CloudWatch log groups per service', () => {
    const settings = parseEvidenceSettings({
      LOGS_BACKEND: 'cloudwatch',
      LOGS_GROUPS: '{"order-service":["/ecs/order"]}',
    });
    expect(settings.LOGS_GROUPS).toEqual({ 'order-service': ['/ecs/order'] });
  });

  it.each([
    [{ KNOWLEDGE_BACKEND: 'elastic' }, ['KNOWLEDGE_BACKEND']],
    [{ MYSQL_URL: 'postgres://admin:hunter2@db:5432/x' }, ['MYSQL_URL']],
    [{ LOGS_GROUPS: '{not json', MYSQL_POOL_SIZE: '0' }, ['LOGS_GROUPS', 'MYSQL_POOL_SIZE']],
    [{ KNOWLEDGE_BACKEND: 'bedrock' }, ['BEDROCK_KNOWLEDGE_BASE_ID']],
    [{ LOGS_BACKEND: 'cloudwatch' }, ['LOGS_GROUPS']],
    // A wildcard or an ARN is not a log group name: the deploy turns these names into IAM resources.
    [{ LOGS_GROUPS: '{"order-service":["*"]}' }, ['LOGS_GROUPS']],
    [{ LOGS_GROUPS: '{"order-service":["/ecs/order*"]}' }, ['LOGS_GROUPS']],
    [
      { LOGS_GROUPS: '{"order-service":["arn:aws:logs:eu-west-1:123456789012:log-group:/ecs/order"]}' },
      ['LOGS_GROUPS'],
    ],
  ])('refuses %j naming only the bad keys', (environment, keys) => {
    let error: unknown;
    try {
      parseEvidenceSettings(environment);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(SettingsError);
    expect((error as SettingsError).keys).toEqual(keys);
    expect((error as Error).message).not.toContain('hunter2');
  });
});

describe('createEvidenceAdapters', () => {
  it('builds working local adapters and a query_mysql that lists the catalog but answers NOT_CONFIGURED without MYSQL_URL', async () => {
    const { evidence, close } = await createEvidenceAdapters(parseEvidenceSettings(local));
    const knowledge = await evidence.lookup_knowledge.execute(toolCall('lookup_knowledge', { query: '连接池耗尽' }));
    expect(knowledge.status).toBe('OK');
    const logs = await evidence.query_logs.execute(
      toolCall('query_logs', {
        service: 'payment-gateway',
        start_time: '2026-11-30T14:00:00+08:00',
        end_time: '2026-11-30T15:00:00+08:00',
      }),
    );
    expect(logs.status).toBe('OK');
    expect(evidence.query_mysql.catalog.map((entry) => entry.name)).toContain('recent_deploys');
    expect(JSON.stringify(evidence.query_mysql.catalog)).not.toContain('SELECT');
    expect(
      await evidence.query_mysql.execute(toolCall('query_mysql', { query_name: 'payment_channels', params: {} })),
    ).toMatchObject({
      status: 'ERROR',
      code: 'NOT_CONFIGURED',
    });
    await close();
  });

  it('serves lookup_knowledge from a prebuilt index file (KNOWLEDGE_INDEX_PATH)', async () => {
    const path = join(await tempDir('kb-index-'), 'knowledge-index.bin');
    await writeFile(path, buildKnowledgeIndexFile(await loadKnowledgeDocuments(examplePath('knowledge'))));
    const { evidence } = await createEvidenceAdapters(parseEvidenceSettings({ ...local, KNOWLEDGE_INDEX_PATH: path }));
    const result = await evidence.lookup_knowledge.execute(toolCall('lookup_knowledge', { query: '发布以后怎么回滚' }));
    expect(result.status === 'OK' ? result.data.hits[0]?.doc_id : result.status).toBe('deploy-rollback');
  });

  it('fails the cold start on a damaged index file, before any lookup', async () => {
    const bytes = buildKnowledgeIndexFile(await loadKnowledgeDocuments(examplePath('knowledge')));
    bytes.set([(bytes.at(-1) ?? 0) ^ 0xff], bytes.length - 1);
    const path = join(await tempDir('kb-index-'), 'knowledge-index.bin');
    await writeFile(path, bytes);
    await expect(
      createEvidenceAdapters(parseEvidenceSettings({ ...local, KNOWLEDGE_INDEX_PATH: path })),
    ).rejects.toBeInstanceOf(KnowledgeBaseError);
  });
});
