/**
 * `diagnosis diagnose --batch FILE --json` run in process (issue 23): the report matches its committed JSON
 * Schema (docs/schemas/batch-report.schema.json), a good item and a refused one alike; and the schema refuses what the
 * report never is.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runInProcess } from '../../support/cli-in-process.ts';
import { schemaErrors } from '../../support/json-schemas.ts';

const endpoint = inject('dynamodbEndpoint');
let dataDir: string;
beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'diagnosis-cli-batch-'));
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('diagnosis diagnose --batch --json', () => {
  it('prints a report its JSON Schema accepts, with a published item and a refused one', async () => {
    const file = join(dataDir, 'requests.jsonl');
    writeFileSync(
      file,
      [
        { sessionId: 'batch-json', enterpriseId: 'E1001', query: 'E1001 的订单从 14:05 开始失败，为什么？' },
        { sessionId: 'batch-json', enterpriseId: 'e1001', query: 'lower-case tenant' },
      ]
        .map((request) => JSON.stringify(request))
        .join('\n'),
    );
    const finished = await runInProcess(
      ['diagnose', '--batch', file, '--concurrency', '2', '--scripted-model', '--json'],
      {
        DIAGNOSIS_LOCAL_DATA: dataDir,
        DYNAMODB_ENDPOINT: endpoint,
        DIAGNOSIS_TABLE_NAME: `cli-batch-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`,
      },
    );
    const report = JSON.parse(finished.stdout);
    expect(schemaErrors('batch-report', report)).toEqual([]);
    expect(report).toMatchObject({
      total: 2,
      outcomes: { PUBLISHED: 1, DiagnosisInputError: 1 },
      results: [{ status: 'PUBLISHED' }, { Error: 'DiagnosisInputError' }],
    });
    // One item failed, so the command says so (exit 1), after the whole report.
    expect(finished.code).toBe(1);
  });

  it('refuses what the report never is: a stored status word, a message beside an error, an unknown field', () => {
    const report = {
      total: 1,
      outcomes: { PUBLISHED: 1 },
      wallMs: 1,
      perMinute: 1,
      p50Ms: 1,
      p95Ms: 1,
      busyRefusals: 0,
      results: [{ runId: 'r', status: 'PUBLISHED' }],
    };
    expect(schemaErrors('batch-report', report)).toEqual([]);
    expect(schemaErrors('batch-report', { ...report, results: [{ runId: 'r', status: 'SUCCEEDED' }] })).not.toEqual([]);
    expect(
      schemaErrors('batch-report', { ...report, results: [{ Error: 'DiagnosisFailed', message: 'raw text' }] }),
    ).not.toEqual([]);
    expect(schemaErrors('batch-report', { ...report, secret: 'x' })).toEqual(['/ must NOT have additional properties']);
  });
});
