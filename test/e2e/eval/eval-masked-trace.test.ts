/**
 * Issue 22: an eval scenario whose world holds synthetic personal data (world/personal-data.json lists it) runs
 * through the real Diagnose function, provider (loopback replay), guards and DynamoDB Local, and what a responder
 * reads of the run afterwards — the trace (`diagnosis trace`'s timeline and HTML page) and the evidence view — shows
 * the masked text the model saw: pseudonyms and redaction markers, never a planted value.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadRunEvidence } from '@diagnosis/core';
import { createDynamoClient, createDynamoRunStore, ensureDiagnosisTable } from '@diagnosis/core/store';
import { loadScenario } from '@diagnosis/eval';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { loadRunTrace } from '../../../packages/cli/src/render/load-run-trace.ts';
import { renderHtml } from '../../../packages/cli/src/render/trace-html.ts';
import { renderTimeline } from '../../../packages/cli/src/render/trace-timeline.ts';
import { DEFAULT_PRICE } from '../../../packages/eval/src/price.ts';
import { runScenario } from '../../../packages/eval/src/run-scenario.ts';
import type { PersonalDataManifest } from '../../../scripts/plant-personal-data.ts';
import { MYSQL_TEST_URL, mariadbAvailable } from '../../support/mariadb.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
const SCENARIO = join(ROOT, 'eval/scenarios/logs-redis-readonly');
const scratchDir = mkdtempSync(join(tmpdir(), 'eval-masked-trace-'));
afterAll(() => rmSync(scratchDir, { recursive: true, force: true }));

describe('an eval scenario with synthetic personal data', () => {
  it('scores as expected and shows only masked text in the trace and the evidence view', async () => {
    const endpoint = inject('dynamodbEndpoint');
    const tableName = `eval-masked-trace-${Date.now()}`;
    const client = createDynamoClient({ DIAGNOSIS_TABLE_NAME: tableName, DYNAMODB_ENDPOINT: endpoint }, process.env);
    await ensureDiagnosisTable(client, tableName);
    const run = await runScenario(loadScenario(SCENARIO), {
      mode: 'offline',
      dynamoEndpoint: endpoint,
      tableName,
      repoRoot: ROOT,
      scratchDir,
      mysqlAdminUrl: (await mariadbAvailable()) ? MYSQL_TEST_URL : undefined,
      liveSettings: {},
      runTimeoutMs: 60_000,
      price: DEFAULT_PRICE,
    });
    expect(run.error).toBeNull();
    expect(run.passed).toBe(true);
    expect(run.verdict).toBe('CORRECT');

    const store = createDynamoRunStore({ client, tableName });
    const runId = run.runId ?? '';
    const trace = await loadRunTrace(store, runId, false);
    if (trace === null) throw new Error('no trace');
    const evidence = await loadRunEvidence(store, runId);
    const shown = [renderTimeline(trace), renderHtml(trace), JSON.stringify(trace), JSON.stringify(evidence)].join(
      '\n',
    );

    const manifest = JSON.parse(
      readFileSync(join(SCENARIO, 'world/personal-data.json'), 'utf8'),
    ) as PersonalDataManifest;
    // The evidence the run cited holds planted customer data, masked.
    expect(JSON.stringify(evidence)).toMatch(/<(?:phone|ipv4|ipv6|email|bank_card|cn_id):[a-z2-7]{5,13}>/);
    expect(shown).toMatch(/<(?:phone|ipv4):[a-z2-7]{5,13}>/);
    const builtIn = manifest.values.filter((planted) => planted.kind !== 'customer_id');
    expect(builtIn.length).toBeGreaterThan(100);
    expect(builtIn.filter((planted) => shown.includes(planted.value)).map((planted) => planted.value)).toEqual([]);
    client.destroy();
  }, 120_000);
});
