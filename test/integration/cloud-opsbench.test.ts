/**
 * The Cloud-OpsBench import and replay through the eval (`runCloudOpsbench`) against DynamoDB Local: a malformed case
 * is skipped with its reason while the others replay; and, when CLOUD_OPSBENCH_DIR names the public dataset's folder,
 * the real thing — every case imports or is skipped with its reason, and the replay of the Train-Ticket database cases
 * brings the root causes' signature lines to the agent (expert evidence recall ≥ 0.9) with every run PUBLISHED or
 * honestly FALLBACK with its cause, and the replay of every case with a golden trajectory ends within an hour.
 * Without it, that part is skipped and says so.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { importCase } from '../../packages/eval/src/cloud-opsbench/import-case.ts';
import { listCases, loadCaseFiles } from '../../packages/eval/src/cloud-opsbench/opsbench-dataset.ts';
import { buildOpsbenchReport } from '../../packages/eval/src/cloud-opsbench/opsbench-report.ts';
import { runCloudOpsbench } from '../../packages/eval/src/cloud-opsbench/run-cloud-opsbench.ts';
import { DEFAULT_PRICE } from '../../packages/eval/src/price.ts';

const endpoint = inject('dynamodbEndpoint');
const FIXTURES = resolve(import.meta.dirname, '../fixtures/cloud-opsbench');
const scratch = mkdtempSync(join(tmpdir(), 'opsbench-run-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const options = (datasetDir: string, filter: Parameters<typeof runCloudOpsbench>[0]['filter']) => ({
  datasetDir,
  filter,
  mode: 'offline' as const,
  concurrency: 2,
  price: DEFAULT_PRICE,
  liveSettings: {},
  totalTokenCap: 1_000_000_000,
  runTimeoutMs: 120_000,
  dynamoEndpoint: endpoint,
});

describe('runCloudOpsbench', () => {
  it('skips a case with a malformed file, with its reason, and replays the others', async () => {
    const copy = join(scratch, 'dataset');
    cpSync(FIXTURES, copy, { recursive: true });
    writeFileSync(join(copy, 'benchmark/trainticket/runtime/2/raw_data/logs.json'), '{"ts-fare-service": "cut');
    const { cases } = await runCloudOpsbench(options(copy, { systems: ['trainticket'] }));
    expect(cases.map((entry) => [entry.case, entry.status, entry.reason, entry.release?.status])).toEqual([
      ['trainticket/runtime/1', 'REPLAYED', null, 'PUBLISHED'],
      ['trainticket/runtime/2', 'SKIPPED', 'MALFORMED: logs.json is not JSON', undefined],
      ['trainticket/service/1', 'REPLAYED', null, 'PUBLISHED'],
    ]);
  }, 120_000);
});

const DATASET = process.env.CLOUD_OPSBENCH_DIR;
if (DATASET === undefined || DATASET === '') {
  console.warn(
    '\n!!! CLOUD_OPSBENCH_DIR is not set: the tests on the public Cloud-OpsBench dataset are SKIPPED ' +
      '(set it to the dataset folder, the one holding benchmark/ and golden-trajectory/) !!!\n',
  );
}

describe.skipIf(DATASET === undefined || DATASET === '')(
  'the public Cloud-OpsBench dataset (CLOUD_OPSBENCH_DIR)',
  () => {
    const dataset = DATASET ?? '';

    it('imports every case or skips it with its reason', () => {
      const refs = listCases(dataset);
      expect(refs.length).toBeGreaterThan(0);
      for (const ref of refs) {
        const loaded = loadCaseFiles(ref);
        if (!loaded.ok) {
          expect(['LOGS_ABSENT', 'METADATA_ABSENT', 'TOO_LARGE', 'MALFORMED']).toContain(loaded.skip.code);
          expect(loaded.skip.detail).not.toBe('');
          continue;
        }
        const imported = importCase(loaded.files);
        expect(imported.ok, ref.key).toBe(true);
        if (imported.ok) expect(imported.imported.stats.records, ref.key).toBeGreaterThan(0);
      }
    }, 1_800_000);

    it('replays the Train-Ticket database cases with the signature lines reaching the agent', async () => {
      const database = listCases(dataset, { systems: ['trainticket'], categories: ['runtime'] })
        .filter((ref) => {
          const loaded = loadCaseFiles(ref);
          const cause = loaded.ok ? loaded.files.metadata.result.root_cause : '';
          return /^(mysql_|db_)/.test(cause) || (!loaded.ok && loaded.skip.code === 'LOGS_ABSENT');
        })
        .map((ref) => ref.key);
      const { cases } = await runCloudOpsbench(options(dataset, { cases: database }));
      const report = buildOpsbenchReport({
        mode: 'offline',
        startedAt: new Date().toISOString(),
        wallMs: 0,
        concurrency: 2,
        price: DEFAULT_PRICE,
        priceSource: '--price',
        filter: { systems: null, categories: null, cases: null, limit: null },
        cases,
      });
      expect(report.totals.errors).toBe(0);
      for (const entry of cases) {
        if (entry.status === 'SKIPPED') expect(entry.reason).toMatch(/^[A-Z_]+: /);
        else expect(['PUBLISHED', 'FALLBACK']).toContain(entry.release?.status);
        if (entry.release?.status === 'FALLBACK') expect(entry.release.cause).not.toBeNull();
      }
      expect(report.totals.evidence_recall?.signatures.recall).toBeGreaterThanOrEqual(0.9);
    }, 1_800_000);

    it('replays every case with a golden trajectory within an hour, each run PUBLISHED or FALLBACK with its cause', async () => {
      const started = performance.now();
      const { cases } = await runCloudOpsbench(options(dataset, {}));
      const wallMs = performance.now() - started;
      expect(cases.filter((entry) => entry.status === 'ERROR').map((entry) => entry.case)).toEqual([]);
      for (const entry of cases) {
        if (entry.status === 'SKIPPED' || entry.status === 'IMPORTED') expect(entry.reason).not.toBeNull();
        else expect(['PUBLISHED', 'FALLBACK']).toContain(entry.release?.status);
        if (entry.release?.status === 'FALLBACK') expect(entry.release.cause).not.toBeNull();
      }
      expect(cases.filter((entry) => entry.status === 'REPLAYED').length).toBeGreaterThan(0);
      expect(wallMs).toBeLessThan(3_600_000);
    }, 3_700_000);
  },
);
