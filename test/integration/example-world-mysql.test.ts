import type { MysqlData, MysqlInput } from '@diagnosis/core';
import { createMysqlAdapter, createMysqlPool, loadMysqlCatalog } from '@diagnosis/core/adapters';
import { loadExampleMysql } from '@diagnosis/devkit';
import type { Pool } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MYSQL_TEST_URL, mariadbAvailable, randomSuffix } from '../support/mariadb.ts';
import { examplePath, toolCall } from '../support/tool-call.ts';

const available = await mariadbAvailable();
const database = `diag_examples_${randomSuffix()}`;
const databaseUrl = MYSQL_TEST_URL.replace(/\/[^/]*$/, `/${database}`);

describe.skipIf(!available)(
  'the example world on MariaDB (npm run examples:mysql + examples/mysql/catalog.json)',
  () => {
    let admin: Pool;
    let pool: Pool;

    beforeAll(async () => {
      admin = createMysqlPool({ url: MYSQL_TEST_URL, connectionLimit: 1 });
      await admin.query(`CREATE DATABASE ${database}`);
      await loadExampleMysql(databaseUrl);
      pool = createMysqlPool({ url: databaseUrl, connectionLimit: 4 });
    });

    afterAll(async () => {
      await pool?.end();
      await admin?.query(`DROP DATABASE IF EXISTS ${database}`);
      await admin?.end();
    });

    const run = async (input: MysqlInput, enterpriseId = 'E1001') => {
      const adapter = createMysqlAdapter({ pool, catalog: await loadMysqlCatalog(examplePath('mysql/catalog.json')) });
      const result = await adapter.execute(toolCall('query_mysql', input, { enterpriseId }));
      return result.status === 'OK' ? (result.data as MysqlData) : result;
    };

    it('loads a catalog of at least five queries, each of which runs for both tenants', async () => {
      const catalog = await loadMysqlCatalog(examplePath('mysql/catalog.json'));
      expect(catalog.length).toBeGreaterThanOrEqual(5);
      const params: Record<string, Record<string, string | number>> = {
        recent_failed_orders: { since: '2026-11-30T14:00:00+08:00' },
        order_status_summary: { since: '2026-11-30T00:00:00+08:00', until: '2026-12-01T00:00:00+08:00' },
        payment_channels: {},
        recent_deploys: { since: '2026-11-28T00:00:00+08:00' },
        config_changes: { service: 'payment-gateway', since: '2026-11-01T00:00:00+08:00' },
        order_detail: { order_id: 'E1001-000001' },
      };
      for (const entry of catalog) {
        for (const enterpriseId of ['E1001', 'E2002']) {
          const result = await run({ query_name: entry.name, params: params[entry.name] ?? {} }, enterpriseId);
          expect(['columns' in result, 'status' in result && result.status === 'EMPTY']).toContain(true);
        }
      }
    });

    it('shows E1001 the pool change and the failures that followed it', async () => {
      const changes = (await run({
        query_name: 'config_changes',
        params: { service: 'payment-gateway', since: '2026-11-30T00:00:00+08:00' },
      })) as MysqlData;
      expect(changes.rows[0]?.slice(0, 3)).toEqual(['db.pool.max_size', '50', '5']);
      const summary = (await run({
        query_name: 'order_status_summary',
        params: { since: '2026-11-30T14:05:00+08:00', until: '2026-11-30T15:05:00+08:00' },
      })) as MysqlData;
      expect(summary.rows[0]?.slice(0, 2)).toEqual(['FAILED', 'PAYMENT_TIMEOUT']);
    });

    it('shows E2002 none of E1001’s deploys, changes or orders', async () => {
      const deploys = (await run(
        { query_name: 'recent_deploys', params: { since: '2026-11-01T00:00:00+08:00' } },
        'E2002',
      )) as MysqlData;
      expect(JSON.stringify(deploys)).not.toContain('db.pool.max_size 50 -> 5');
      expect(await run({ query_name: 'order_detail', params: { order_id: 'E1001-000001' } }, 'E2002')).toEqual({
        status: 'EMPTY',
      });
      expect(
        await run(
          { query_name: 'config_changes', params: { service: 'payment-gateway', since: '2026-11-01T00:00:00+08:00' } },
          'E2002',
        ),
      ).toEqual({
        status: 'EMPTY',
      });
    });
  },
);
