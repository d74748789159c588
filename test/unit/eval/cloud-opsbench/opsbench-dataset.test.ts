import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  DatasetError,
  listCases,
  loadCaseFiles,
  systemLabels,
} from '../../../../packages/eval/src/cloud-opsbench/opsbench-dataset.ts';

const FIXTURES = resolve(import.meta.dirname, '../../../fixtures/cloud-opsbench');
const scratch = mkdtempSync(join(tmpdir(), 'opsbench-dataset-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('listCases', () => {
  it('lists the cases in system, category and numeric id order', () => {
    expect(listCases(FIXTURES).map((ref) => ref.key)).toEqual([
      'boutique/runtime/1',
      'boutique/startup/1',
      'boutique/startup/3',
      'trainticket/runtime/1',
      'trainticket/runtime/2',
      'trainticket/service/1',
    ]);
  });

  it('keeps what the filters name, then the limit', () => {
    expect(listCases(FIXTURES, { systems: ['trainticket'] }).map((ref) => ref.key)).toEqual([
      'trainticket/runtime/1',
      'trainticket/runtime/2',
      'trainticket/service/1',
    ]);
    expect(listCases(FIXTURES, { categories: ['startup'], limit: 1 }).map((ref) => ref.key)).toEqual([
      'boutique/startup/1',
    ]);
    expect(listCases(FIXTURES, { cases: ['trainticket/runtime/2'] }).map((ref) => ref.id)).toEqual(['2']);
  });

  it('refuses a folder that is not the dataset, and a case that is not in it', () => {
    expect(() => listCases(scratch)).toThrow(DatasetError);
    expect(() => listCases(FIXTURES, { cases: ['trainticket/runtime/99'] })).toThrow('no case trainticket/runtime/99');
  });
});

describe('loadCaseFiles', () => {
  const ref = (key: string) => listCases(FIXTURES, { cases: [key] })[0] as ReturnType<typeof listCases>[number];

  it('reads a case’s files and its golden paths', () => {
    const loaded = loadCaseFiles(ref('trainticket/runtime/1'));
    expect(loaded.ok).toBe(true);
    if (!loaded.ok) return;
    expect(loaded.files.metadata.result.root_cause).toBe('mysql_invalid_credentials');
    expect(loaded.files.alerts).toHaveLength(1);
    expect(Object.keys(loaded.files.logs)).toContain('ts-ledger-service.previous');
    expect(loaded.files.paths.map((path) => path.length)).toEqual([4, 4]);
    expect(loaded.files.pathNotes).toEqual([]);
  });

  it('imports a case without a golden trajectory, saying so', () => {
    const loaded = loadCaseFiles(ref('boutique/startup/1'));
    expect(loaded.ok && loaded.files.paths).toEqual([]);
    expect(loaded.ok && loaded.files.pathNotes).toEqual(['no golden trajectory']);
  });

  it('skips a case whose logs the snapshot left out, with its reason', () => {
    expect(loadCaseFiles(ref('boutique/startup/3'))).toEqual({
      ok: false,
      skip: { code: 'LOGS_ABSENT', detail: 'raw_data/logs.json is not in the dataset' },
    });
  });

  it('skips a malformed file with the file and the field at fault, never its content', () => {
    const copy = join(scratch, 'malformed');
    cpSync(FIXTURES, copy, { recursive: true });
    const caseDir = join(copy, 'benchmark/trainticket/runtime/1');
    writeFileSync(join(caseDir, 'raw_data/logs.json'), '{"ts-ledger-service": ["password=hunter2');
    const broken = listCases(copy, { cases: ['trainticket/runtime/1'] })[0] as ReturnType<typeof listCases>[number];
    expect(loadCaseFiles(broken)).toEqual({ ok: false, skip: { code: 'MALFORMED', detail: 'logs.json is not JSON' } });
    writeFileSync(join(caseDir, 'raw_data/logs.json'), JSON.stringify({ 'ts-ledger-service': 42 }));
    const skip = loadCaseFiles(broken);
    expect(skip.ok === false && skip.skip.code).toBe('MALFORMED');
    expect(skip.ok === false && skip.skip.detail).toMatch(/^logs\.json ts-ledger-service: /);
    writeFileSync(join(caseDir, 'metadata.json'), JSON.stringify({ namespace: 'x', query: 'q', result: {} }));
    expect(loadCaseFiles(broken)).toMatchObject({ ok: false, skip: { code: 'MALFORMED' } });
    // A golden path that is not one: the case imports, the path is named in its notes.
    const goldenCase = join(copy, 'benchmark/trainticket/runtime/2');
    writeFileSync(join(copy, 'golden-trajectory/trainticket/runtime/2/path1.json'), '{"steps": []}');
    const golden = loadCaseFiles(listCases(copy, { cases: ['trainticket/runtime/2'] })[0] as never);
    expect(golden.ok && golden.files.pathNotes).toEqual(['path1.json: not a golden path (diagnostic_trace)']);
    expect(goldenCase).toContain('runtime/2');
  });
});

describe('systemLabels', () => {
  it('lists the root-cause labels of a system’s cases', () => {
    expect(systemLabels(FIXTURES, 'trainticket')).toEqual([
      'mysql_invalid_credentials',
      'mysql_invalid_port',
      'service_dns_resolution_failure',
    ]);
    expect(systemLabels(FIXTURES, 'nowhere')).toEqual([]);
  });
});
