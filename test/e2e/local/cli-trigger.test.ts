/**
 * `diagnosis trigger <event.json>` run in process (runCommandLine; issue 21): the example alarm through the real
 * Trigger function and the Diagnose function with the demo's scripted model, on the test run's DynamoDB Local; the
 * incident's rules across commands (a repeat attaches, a re-fire after the quiet period continues the session); a
 * PagerDuty event through the webhook function, signed by the command; `demo --alarm`. Every `--json` it prints (the
 * started run in full, an attached event, an ignored one) matches its committed JSON Schema
 * (docs/schemas/trigger-report.schema.json, issue 23), and the schema refuses what the output never is.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runInProcess } from '../../support/cli-in-process.ts';
import { schemaErrors } from '../../support/json-schemas.ts';

const endpoint = inject('dynamodbEndpoint');
const tableName = `cli-trigger-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
let dataDir: string;
beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'diagnosis-cli-trigger-'));
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const diagnosis = (args: string[]) =>
  runInProcess(args, { DIAGNOSIS_LOCAL_DATA: dataDir, DYNAMODB_ENDPOINT: endpoint, DIAGNOSIS_TABLE_NAME: tableName });

const ALARM = 'examples/triggers/cloudwatch-alarm.json';

interface JudgeVerdict {
  analysis_index: number;
  reason: string;
}

/** The first test's output: the started run in full, which later tests compare to and mutate for the schema. */
let first: {
  trigger: { runId: string; sessionId: string };
  run: Record<string, unknown>;
  result: { status: string };
};

describe('diagnosis trigger', () => {
  it('starts a run from the example alarm, with the question and window set by code, and publishes it', async () => {
    const finished = await diagnosis(['trigger', ALARM, '--scripted-model', '--json']);
    expect(finished.code, finished.stderr).toBe(0);
    first = JSON.parse(finished.stdout);
    expect(schemaErrors('trigger-report', first)).toEqual([]);
    expect(first.trigger).toMatchObject({ outcome: 'STARTED', continued: false });
    expect(first.run).toMatchObject({
      trigger: { source: 'cloudwatch', title: 'E1001-payment-gateway-5xx' },
      window: { from: '2026-11-30T05:35:12.211Z', to: '2026-11-30T06:05:12.211Z' },
    });
    expect(String(first.run.query)).toMatch(
      /^CloudWatch 告警「E1001-payment-gateway-5xx」于 2026-11-30T14:05:12\+08:00/,
    );
    expect(first.result.status).toBe('PUBLISHED');
  });

  it('claims only what its observations show, clamped to the window: every count and value of a finding or a verdict', () => {
    // NOTE: the scripted alarm conversation is an example: a count of lines (`10 条`) or a `key=value` it states, in a
    // finding or in the judge's reason for it, must be in what the checks it cites returned inside the window.
    const { result, evidence } = first as unknown as {
      result: { report: { draft: { analysis: { statement: string; tool_call_ids: string[] }[] } } };
      evidence: { citations: { tool_call_id: string; observation: string | null; verdicts: JudgeVerdict[] }[] };
    };
    const observations = new Map(evidence.citations.map((citation) => [citation.tool_call_id, citation.observation]));
    const reasons = evidence.citations.flatMap((citation) => citation.verdicts);
    const claims = result.report.draft.analysis.map((item, index) => {
      const seen = item.tool_call_ids.map((id) => observations.get(id) ?? '');
      const lines = seen.reduce((sum, text) => sum + (JSON.parse(text || '{}').data?.lines?.length ?? 0), 0);
      const said = [
        item.statement,
        ...reasons.filter((verdict) => verdict.analysis_index === index).map((v) => v.reason),
      ];
      return { said: said.join(' '), seen: seen.join(' '), lines };
    });
    expect(claims.length).toBeGreaterThan(0);
    for (const claim of claims) {
      for (const [, count] of claim.said.matchAll(/(\d+) 条/g)) expect(Number(count)).toBeLessThanOrEqual(claim.lines);
      for (const [pair] of claim.said.matchAll(/\b[a-z_.]+=\d+/g)) expect(claim.seen).toContain(pair);
    }
  });

  it('attaches the same alarm again within the quiet period and starts nothing', async () => {
    const finished = await diagnosis(['trigger', ALARM, '--received-at', '2026-11-30T06:09:00Z']);
    // NOTE: no model key and no --scripted-model is refused before anything runs…
    expect(finished.code).toBe(69);
    const again = await diagnosis(['trigger', ALARM, '--scripted-model', '--received-at', '2026-11-30T06:09:00Z']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(
      `started NO run: the event attached to run ${first.trigger.runId} (PUBLISHED) of the same incident, as its event 1 (TRIGGERED; 1 attached so far).`,
    );
    // It says what to do for a new run: --now, or a fresh data folder.
    expect(again.stderr).toContain('add --now: the event arrives now');
    expect(again.stderr).toContain('DIAGNOSIS_LOCAL_DATA=$(mktemp -d) npx diagnosis trigger …');
    const trace = await diagnosis(['trace', first.trigger.runId]);
    expect(trace.code, trace.stderr).toBe(0);
    expect(trace.stdout).toContain('trigger: cloudwatch “E1001-payment-gateway-5xx” started 2026-11-30T06:05:12.211Z');
    expect(trace.stdout).toContain('incident window (UTC): 2026-11-30T05:35:12.211Z – 2026-11-30T06:05:12.211Z');
    expect(trace.stdout).toMatch(
      /attached incident events: 1 \(last said TRIGGERED at 2026-11-30T06:09:00\.000Z\)\n +1 {2}2026-11-30T06:09:00\.000Z {2}TRIGGERED {5}7f0c1b1e-3a2d-4c55-9e61-2b8d4a6f0e11/,
    );
    // The page shows what the terminal shows: the trigger, the window and the attached events.
    const page = readFileSync(join(dataDir, 'traces', `${first.trigger.runId}.html`), 'utf8');
    expect(page).toContain('<h3>Trigger</h3>');
    expect(page).toContain('<span>E1001-payment-gateway-5xx</span>');
    expect(page).toContain('2026-11-30T05:35:12.211Z – 2026-11-30T06:05:12.211Z (UTC)');
    expect(page).toMatch(
      /<h3>Attached events<\/h3>\n<table id="attached">.*<td>1<\/td><td>2026-11-30T06:09:00\.000Z<\/td><td class="kind">TRIGGERED<\/td><td><code>7f0c1b1e-3a2d-4c55-9e61-2b8d4a6f0e11<\/code>/,
    );
    const listing = await diagnosis(['runs']);
    expect(listing.code, listing.stderr).toBe(0);
    expect(listing.stdout).toMatch(/ INCIDENT +QUERY\n/);
    expect(listing.stdout).toContain('cloudwatch · 1 event · TRIGGERED');
  });

  it('says plainly that --post-slack posted nothing when the event started no run', async () => {
    const finished = await diagnosis([
      'trigger',
      ALARM,
      '--scripted-model',
      '--received-at',
      '2026-11-30T06:09:30Z',
      '--post-slack',
      'http://127.0.0.1:9/never-called',
    ]);
    expect(finished.code, finished.stderr).toBe(0);
    expect(finished.stderr).toContain(', so --post-slack posted nothing.');
    expect(finished.stderr).not.toContain('posted the Slack message');
  });

  it.each(['alertmanager-webhook.json', 'pagerduty-webhook.json'])(
    'accepts the example %s as its sender would send it',
    async (file) => {
      // NOTE: a table of its own: the PagerDuty example has the fixture's event id, which the table would take for a
      // replay.
      const finished = await runInProcess(['trigger', `examples/triggers/${file}`, '--scripted-model', '--json'], {
        DIAGNOSIS_LOCAL_DATA: dataDir,
        DYNAMODB_ENDPOINT: endpoint,
        DIAGNOSIS_TABLE_NAME: `${tableName}-examples`,
      });
      expect(finished.code, finished.stderr).toBe(0);
      expect(JSON.parse(finished.stdout).trigger.outcome).toBe('STARTED');
    },
  );

  it('starts a second run continuing the same session after the quiet period (continueSession)', async () => {
    const finished = await diagnosis([
      'trigger',
      ALARM,
      '--scripted-model',
      '--json',
      '--received-at',
      '2026-11-30T06:30:00Z',
    ]);
    expect(finished.code, finished.stderr).toBe(0);
    const second = JSON.parse(finished.stdout);
    expect(schemaErrors('trigger-report', second)).toEqual([]);
    expect(second.trigger).toMatchObject({ outcome: 'STARTED', continued: true, sessionId: first.trigger.sessionId });
    expect(second.trigger.runId).not.toBe(first.trigger.runId);
  });

  it('starts nothing for an alarm no mapping of the stage file takes', async () => {
    const finished = await diagnosis([
      'trigger',
      'test/fixtures/triggers/cloudwatch-alarm-unmapped.json',
      '--scripted-model',
    ]);
    expect(finished.code).toBe(0);
    expect(finished.stderr).toContain("started NO run (UNMAPPED: no mapping of the stage file's triggers matches it).");
    const json = await diagnosis([
      'trigger',
      'test/fixtures/triggers/cloudwatch-alarm-unmapped.json',
      '--scripted-model',
      '--json',
    ]);
    expect(json.code, json.stderr).toBe(0);
    const ignored = JSON.parse(json.stdout);
    expect(ignored).toEqual({ trigger: { outcome: 'IGNORED', code: 'UNMAPPED' } });
    expect(schemaErrors('trigger-report', ignored)).toEqual([]);
  });

  it('signs a PagerDuty event as PagerDuty would and starts its run through the webhook function', async () => {
    const finished = await diagnosis([
      'trigger',
      'test/fixtures/triggers/pagerduty-incident-triggered.json',
      '--scripted-model',
      '--json',
    ]);
    expect(finished.code, finished.stderr).toBe(0);
    const started = JSON.parse(finished.stdout);
    expect(started).toMatchObject({
      trigger: { outcome: 'STARTED' },
      run: { trigger: { source: 'pagerduty', incidentKey: 'Q2W8ZKH3R5TB7Y' } },
    });
    expect(schemaErrors('trigger-report', started)).toEqual([]);
    // The same delivery again (PagerDuty's retry): a duplicate, answered 200, nothing written; not a refusal.
    const again = await diagnosis([
      'trigger',
      'test/fixtures/triggers/pagerduty-incident-triggered.json',
      '--scripted-model',
      '--json',
    ]);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({ trigger: { outcome: 'DUPLICATE' } });
    expect(schemaErrors('trigger-report', JSON.parse(again.stdout))).toEqual([]);
  });

  it('refuses a file that is no known sender’s event, exit 64', async () => {
    const finished = await diagnosis(['trigger', 'package.json', '--scripted-model']);
    expect(finished.code).toBe(64);
    expect(finished.stderr).toContain('not a CloudWatch Alarm State Change');
  });
});

describe('diagnosis trigger --help', () => {
  it('prints its usage, options and examples, exit 0', async () => {
    const finished = await diagnosis(['trigger', '--help']);
    expect(finished.code).toBe(0);
    expect(finished.stdout).toMatch(/^usage: diagnosis trigger <event\.json>/);
    for (const option of ['--stage', '--received-at', '--now', '--scripted-model', '--json']) {
      expect(finished.stdout).toContain(option);
    }
  });
});

describe('diagnosis demo --alarm', () => {
  it('runs the demo started from the example alarm', async () => {
    const finished = await diagnosis(['demo', '--alarm', '--json']);
    expect(finished.code, finished.stderr).toBe(0);
    // The same incident as the first test: the quiet period holds, so it attaches (the table is this file's).
    const attached = JSON.parse(finished.stdout);
    expect(attached.trigger.outcome).toBe('ATTACHED');
    expect(attached.run.status).toBe('SUCCEEDED');
    expect(schemaErrors('trigger-report', attached)).toEqual([]);
    // The schema refuses what an attached event's output never is: the API's word for the stored status, a field of
    // the started shape, a missing sequence.
    expect(schemaErrors('trigger-report', { ...attached, run: { ...attached.run, status: 'PUBLISHED' } })).toContain(
      '/run/status must be equal to one of the allowed values',
    );
    expect(schemaErrors('trigger-report', { ...attached, result: first.result })).toContain(
      '/ must NOT have additional properties',
    );
    const { sequence: _sequence, ...noSequence } = attached.trigger;
    expect(schemaErrors('trigger-report', { ...attached, trigger: noSequence })).toContain(
      "/trigger must have required property 'sequence'",
    );
  });
});

describe('the JSON Schema of diagnosis trigger --json', () => {
  type Started = Record<string, unknown> & {
    trigger: Record<string, unknown>;
    run: Record<string, unknown>;
    result: Record<string, unknown>;
    deliveries: (Record<string, unknown> & { payload: { blocks: Record<string, unknown>[] } })[];
  };
  it('refuses what a started run’s output never is: an unknown field, a wrong word, a missing part', () => {
    const started = first as unknown as Started;
    const errors = (value: unknown) => schemaErrors('trigger-report', value);
    expect(errors({ ...started, stack: 'Error: at …' })).toContain('/ must NOT have additional properties');
    expect(errors({ ...started, reveal: 'UNMASKED' })).toContain('/reveal must be equal to one of the allowed values');
    expect(errors({ ...started, result: { ...started.result, evidence: null } })).toContain(
      '/result must NOT have additional properties',
    );
    expect(errors({ ...started, result: { ...started.result, status: 'SUCCEEDED' } })).toContain(
      '/result/status must be equal to one of the allowed values',
    );
    expect(errors({ ...started, trigger: { ...started.trigger, status: 'PUBLISHED' } })).toContain(
      '/trigger/status must be equal to one of the allowed values',
    );
    const { deliveries: _deliveries, ...noDeliveries } = started;
    expect(errors(noDeliveries)).toContain("/ must have required property 'deliveries'");
    const [slack] = started.deliveries;
    if (slack === undefined) throw new Error('no Slack preview');
    const withBlock = (block: Record<string, unknown>) => ({
      ...started,
      deliveries: [{ ...slack, payload: { ...slack.payload, blocks: [block] } }],
    });
    expect(errors(withBlock({ type: 'image', image_url: 'https://evil.example/x.png' }))).not.toEqual([]);
    expect(
      errors(withBlock({ type: 'section', text: { type: 'mrkdwn', text: 'x'.repeat(3_001), verbatim: true } })),
    ).not.toEqual([]);
    expect(errors({ ...started, deliveries: [{ ...slack, text: '# Diagnosis published' }] })).not.toEqual([]);
  });
});
