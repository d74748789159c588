/**
 * Capture → replay of a run that used the deployment's own MySQL catalog (issue 32 item 11): the run, through the real
 * Diagnose handler on MariaDB, names a query only that catalog has; it is rated CORRECT, captured with that catalog
 * (the deployment's MYSQL_CATALOG_PATH), and its offline replay through the real pipeline answers the query from the
 * recording — it ends as the run did, and is not reported REGRESSED.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DiagnosisResult } from '@diagnosis/core';
import { captureRun, DEFAULT_PRICE, loadScenario, runEval } from '@diagnosis/eval';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { wireText, wireToolCalls } from '../../support/deepseek-server.ts';
import { localDynamoClient } from '../../support/dynamodb.ts';
import { startE2eWorld } from '../../support/e2e-world.ts';
import { httpEvent, lambdaContext } from '../../support/lambda-events.ts';
import { mariadbAvailable } from '../../support/mariadb.ts';
import { draftAnswer, supportedDraft } from '../../support/run-fixtures.ts';
import { tempDir } from '../../support/temp-dir.ts';

const mysqlReachable = await mariadbAvailable();
const ALICE = { accountId: '111122223333', userArn: 'arn:aws:sts::111122223333:assumed-role/OpsE1001/alice' };
const CALL = 'call_00_OwnCatalogChannelTimeouts01';
/** The deployment's own catalog: a query the example catalog does not have, over the example seed's tables. */
const OWN_CATALOG = [
  {
    name: 'channel_timeouts',
    description: '本企业各支付通道的超时配置（本部署自己的目录条目）',
    sql: 'SELECT channel, timeout_ms FROM payment_channel_config WHERE enterprise_id = :enterprise_id ORDER BY channel',
    params: {},
    max_rows: 10,
  },
  {
    name: 'unused_entry',
    description: '本次运行没有用到的条目',
    sql: 'SELECT channel FROM payment_channel_config WHERE enterprise_id = :enterprise_id',
    params: {},
    max_rows: 5,
  },
];
let world: Awaited<ReturnType<typeof startE2eWorld>>;
let catalogDir: string;
let catalogPath: string;
const client = localDynamoClient();

beforeAll(async () => {
  if (!mysqlReachable) return;
  catalogDir = mkdtempSync(join(tmpdir(), 'own-catalog-'));
  catalogPath = join(catalogDir, 'catalog.json');
  writeFileSync(catalogPath, JSON.stringify(OWN_CATALOG));
  world = await startE2eWorld({ MYSQL_CATALOG_PATH: catalogPath });
}, 120_000);
afterAll(async () => {
  client.destroy();
  await world?.cleanup();
  if (catalogDir !== undefined) rmSync(catalogDir, { recursive: true, force: true });
});

describe('capture → replay of a run that used the deployment’s own MySQL catalog', () => {
  it.skipIf(!mysqlReachable)(
    'replays a CORRECT run without REGRESSED: the catalog entries it used are captured',
    async () => {
      const runId = `own-catalog-${Date.now().toString(36)}`;
      world.server.script.push(
        wireToolCalls([
          { id: CALL, name: 'query_mysql', arguments: { input: { query_name: 'channel_timeouts', params: {} } } },
        ]),
        wireText(draftAnswer(supportedDraft([CALL]))),
      );
      const result = (await world.handlers.diagnose(
        { runId, sessionId: 's-own-catalog', enterpriseId: 'E1001', query: 'E1001 的支付通道超时配置是多少？' },
        lambdaContext(60_000),
      )) as DiagnosisResult;
      expect(result.status).toBe('PUBLISHED');
      const rated = (await world.handlers.runFeedback(
        httpEvent({ pathParameters: { runId }, body: JSON.stringify({ verdict: 'CORRECT' }), iam: ALICE }),
        lambdaContext(5_000),
      )) as { statusCode: number };
      expect(rated.statusCode).toBe(201);

      const dir = join(await tempDir('capture-'), 'captured-own-catalog');
      const outcome = await captureRun({
        runId,
        out: dir,
        timeZone: 'Asia/Shanghai',
        client,
        tableName: world.tableName,
        sourceName: 'DynamoDB Local',
        catalogPath,
      });
      if (!outcome.ok) throw new Error(outcome.message);
      // Only the entry the run used, as the deployment's catalog writes it.
      expect(JSON.parse(readFileSync(join(dir, 'world/mysql/catalog.json'), 'utf8'))).toEqual([OWN_CATALOG[0]]);

      const report = await runEval([loadScenario(dir)], {
        mode: 'offline',
        concurrency: 1,
        price: DEFAULT_PRICE,
        mysqlAdminUrl: undefined,
        liveSettings: {},
        totalTokenCap: 1_000_000,
        runTimeoutMs: 120_000,
        dynamoEndpoint: inject('dynamodbEndpoint'),
      });
      const [row] = report.scenarios;
      expect(row).toMatchObject({
        status: 'RAN',
        captured: { runId, feedbackVerdict: 'CORRECT', replayedStatus: 'PUBLISHED', regressed: false, notRecorded: 0 },
      });
      expect(row?.process).toMatchObject({ toolCalls: { executed: 1, evidence: 1, refused: 0 } });
      expect(report.summary.captured).toEqual({ scenarios: 1, regressed: 0 });
    },
    120_000,
  );
});
