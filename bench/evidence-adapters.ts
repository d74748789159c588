/**
 * Evidence adapter benchmarks: local logs scan rate (1,000,000 generated lines) and MySQL adapter overhead over a raw
 * mysql2 query. The local knowledge index has its own, at scale: bench/knowledge-index.ts.
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createLocalLogsAdapter,
  createMysqlAdapter,
  createMysqlPool,
  parseMysqlCatalog,
} from '@diagnosis/core/adapters';
import { toolCall } from '../test/support/tool-call.ts';

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

async function benchLogs(): Promise<void> {
  const LINES = Number(process.env.BENCH_LOG_LINES ?? 1_000_000);
  const directory = await mkdtemp(join(tmpdir(), 'bench-logs-'));
  const file = createWriteStream(join(directory, 'all.jsonl'));
  const services = ['order-service', 'payment-gateway', 'inventory-service'];
  const start = Date.parse('2026-11-29T16:00:00Z');
  for (let index = 0; index < LINES; index += 1) {
    const line = {
      timestamp: new Date(start + Math.floor((index / LINES) * 86_400_000)).toISOString(),
      level: index % 17 === 0 ? 'ERROR' : index % 5 === 0 ? 'WARN' : 'INFO',
      service: services[index % 3],
      enterprise_id: index % 4 === 0 ? 'E2002' : 'E1001',
      trace_id: (index * 2654435761).toString(16).slice(0, 16),
      message: `request handled path=/v1/orders/${index} latency_ms=${index % 997} upstream=payment-gateway pool=HikariPool-1`,
    };
    if (!file.write(`${JSON.stringify(line)}\n`))
      await new Promise<void>((resolve) => file.once('drain', () => resolve()));
  }
  await new Promise<void>((resolve) => file.end(() => resolve()));
  const adapter = createLocalLogsAdapter({ directory });
  const input = {
    service: 'payment-gateway',
    start_time: '2026-11-30T00:00:00+08:00',
    end_time: '2026-11-30T23:59:59+08:00',
    level: 'ERROR' as const,
    keyword: 'hikaripool',
    limit: 50,
  };
  await adapter.execute(toolCall('query_logs', input)); // warm the page cache
  const timings: number[] = [];
  let matched = 0;
  for (let run = 0; run < 3; run += 1) {
    const begin = performance.now();
    const result = await adapter.execute(toolCall('query_logs', input));
    timings.push(performance.now() - begin);
    matched = result.status === 'OK' ? result.data.matched : 0;
  }
  const best = Math.min(...timings);
  const rate = LINES / (best / 1_000);
  console.log(`\n## local logs: scan of ${LINES.toLocaleString('en')} lines (${matched} matches)`);
  console.log(
    `best of 3 ${best.toFixed(0)} ms   ${Math.round(rate).toLocaleString('en')} lines/s   (target ≥ 500,000: ${rate >= 500_000 ? 'met' : 'MISSED'})`,
  );
  await rm(directory, { recursive: true, force: true });
}

async function benchMysql(): Promise<void> {
  const url = process.env.MYSQL_TEST_URL ?? 'mysql://root@127.0.0.1:3306/test';
  const pool = createMysqlPool({ url, connectionLimit: 1, connectTimeoutMs: 2_000 });
  try {
    await pool.query('SELECT 1');
  } catch {
    console.log('\n## MySQL adapter overhead: SKIPPED (no MariaDB/MySQL at MYSQL_TEST_URL)');
    await pool.end();
    return;
  }
  const table = `bench_orders_${process.pid}`;
  await pool.query(
    `CREATE TABLE ${table} (id INT PRIMARY KEY, enterprise_id VARCHAR(16), status VARCHAR(16), created_at DATETIME)`,
  );
  try {
    const rows = Array.from({ length: 200 }, (_, index) => [
      index,
      index % 2 === 0 ? 'E1001' : 'E2002',
      'FAILED',
      '2026-11-30 06:00:00',
    ]);
    await pool.query(`INSERT INTO ${table} VALUES ?`, [rows]);
    const sql = `SELECT id, status, created_at FROM ${table} WHERE enterprise_id = :enterprise_id ORDER BY id DESC`;
    const catalog = parseMysqlCatalog([{ name: 'orders', description: 'd', sql, params: {}, max_rows: 20 }]);
    const adapter = createMysqlAdapter({ pool, catalog, dialect: 'mariadb' });
    const rawSql = `SELECT id, status, created_at FROM ${table} WHERE enterprise_id = ? ORDER BY id DESC LIMIT 21`;
    const RUNS = 1_000;
    const raw = async () => {
      await pool.query({ sql: rawSql, values: ['E1001'], rowsAsArray: true });
    };
    const wrapped = async () => {
      await adapter.execute(toolCall('query_mysql', { query_name: 'orders', params: {} }));
    };
    const measure = async (body: () => Promise<void>) => {
      for (let run = 0; run < 100; run += 1) await body();
      const samples: number[] = [];
      for (let run = 0; run < RUNS; run += 1) {
        const begin = performance.now();
        await body();
        samples.push(performance.now() - begin);
      }
      return percentile(
        samples.sort((a, b) => a - b),
        0.5,
      );
    };
    const rawMedian = await measure(raw);
    const adapterMedian = await measure(wrapped);
    const added = adapterMedian - rawMedian;
    console.log('\n## MySQL adapter overhead (same SQL, 20 rows, pool of 1, MariaDB on loopback)');
    console.log(
      `raw mysql2 median ${rawMedian.toFixed(3)} ms   adapter median ${adapterMedian.toFixed(3)} ms   ratio ${(adapterMedian / rawMedian).toFixed(2)}`,
    );
    console.log(`added per call ${added.toFixed(3)} ms   (target ≤ 1 ms: ${added <= 1 ? 'met' : 'MISSED'})`);
  } finally {
    await pool.query(`DROP TABLE IF EXISTS ${table}`);
    await pool.end();
  }
}

export async function benchEvidenceAdapters(): Promise<void> {
  await benchLogs();
  await benchMysql();
}

if (import.meta.url === `file://${process.argv[1]}`) await benchEvidenceAdapters();
