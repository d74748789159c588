/**
 * `diagnosis eval --json` run in process (issue 23): the scorecard matches its committed JSON Schema
 * (docs/schemas/eval-report.schema.json) for a diagnosed, an abstaining and a deliberately wrong scenario, and for the
 * rows a run without a result has (skipped, error); the schema's word lists are the code's; and it refuses what the
 * report never is. The captured scenario's row is checked in capture-replay.test.ts.
 */
import { FEEDBACK_VERDICTS, STATUS_WORDS, TOOL_NAMES } from '@diagnosis/core';
import { CATEGORIES, VERDICTS } from '@diagnosis/eval';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { runInProcess } from '../../support/cli-in-process.ts';
import { loadSchema, schemaErrors } from '../../support/json-schemas.ts';

const endpoint = inject('dynamodbEndpoint');
const ONLY = ['cascade-migration-index', 'timezone-utc-misread', 'red-herring-kafka-wrong'];
let report: Record<string, unknown> & { scenarios: Record<string, unknown>[] };

beforeAll(async () => {
  const finished = await runInProcess(['eval', '--json', '--only', ONLY.join(','), '--concurrency', '3'], {
    DYNAMODB_ENDPOINT: endpoint,
  });
  expect(finished.stderr).not.toContain('stopped by');
  expect(finished.code).toBe(0);
  report = JSON.parse(finished.stdout);
}, 120_000);

describe('diagnosis eval --json', () => {
  it('prints a scorecard its JSON Schema accepts', () => {
    expect(schemaErrors('eval-report', report)).toEqual([]);
    expect(report.scenarios.map((run) => [run.id, run.verdict])).toEqual([
      ['cascade-migration-index', 'CORRECT'],
      ['red-herring-kafka-wrong', 'CONFIDENTLY_WRONG'],
      ['timezone-utc-misread', 'ABSTAINED'],
    ]);
    // Offline, every run's request bodies were measured, and each row carries its process scorecard.
    for (const run of report.scenarios) {
      expect(run.measured).not.toBeNull();
      expect(run.process).not.toBeNull();
    }
  });

  it('accepts the rows of scenarios that did not run, and a live report', () => {
    const [first] = report.scenarios as [Record<string, unknown>];
    const noRun = {
      ...first,
      status: 'SKIPPED',
      verdict: null,
      score: null,
      observation: null,
      probes: [],
      measured: null,
      runId: null,
      process: null,
      notes: ['total token cap 1000 reached'],
      passed: false,
    };
    const errored = { ...noRun, status: 'ERROR', error: 'WORLD_UNAVAILABLE: the MySQL world could not be loaded' };
    expect(schemaErrors('eval-report', { ...report, scenarios: [noRun, errored] })).toEqual([]);
    const live = { ...report, mode: 'live', scenarios: report.scenarios.map((run) => ({ ...run, measured: null })) };
    expect(schemaErrors('eval-report', live)).toEqual([]);
  });

  it('holds the same word lists as the code', () => {
    const defs = loadSchema('eval-report').$defs as Record<string, { enum?: unknown[] }>;
    expect(defs.category?.enum).toEqual([...CATEGORIES]);
    expect(defs.verdict?.enum).toEqual([...VERDICTS]);
    expect(defs.statusWord?.enum).toEqual([...STATUS_WORDS]);
    expect(defs.toolName?.enum).toEqual([...TOOL_NAMES]);
    expect(defs.feedbackVerdict?.enum).toEqual([...FEEDBACK_VERDICTS]);
  });

  it('refuses what the report never is: the stored status word, an unknown field, a raw probe answer', () => {
    const [first] = report.scenarios as [Record<string, unknown> & { observation: object; probes: object[] }];
    const withRun = (run: Record<string, unknown>) => schemaErrors('eval-report', { ...report, scenarios: [run] });
    expect(withRun({ ...first, observation: { ...first.observation, status: 'SUCCEEDED' } })).not.toEqual([]);
    expect(withRun({ ...first, stack: 'Error: at …' })).toEqual(['/scenarios/0 must NOT have additional properties']);
    expect(schemaErrors('eval-report', { ...report, secret: 'x' })).toEqual(['/ must NOT have additional properties']);
    expect(
      withRun({ ...first, probes: [{ ...first.probes[0], got: 'connect ECONNREFUSED 10.0.0.5:3306' }] }),
    ).not.toEqual([]);
    expect(withRun({ ...first, verdict: 'GOOD' })).not.toEqual([]);
  });
});
