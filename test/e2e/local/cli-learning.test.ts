/**
 * The learning loop through the `diagnosis` bin's commands in process (runCommandLine), on the test run's DynamoDB Local: the demo's run
 * rated with `diagnosis feedback`, captured with `diagnosis eval capture`, replayed by `diagnosis eval --scenarios`,
 * and two scorecards compared with `diagnosis eval compare`; the pseudonyms behind it shown by `diagnosis reveal`. The
 * `--json` of feedback, reveal and eval compare matches its committed JSON Schema (docs/schemas/run-feedback,
 * reveal-entries and eval-comparison .schema.json, issue 23), and each schema refuses what the output never is.
 * NOTE: over 300 lines on purpose: the learning loop as one story: a run rated, captured, replayed and compared, each
 * step using the one before.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDynamoPastIncidentStore, createDynamoRunStore } from '@diagnosis/core/store';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runInProcess } from '../../support/cli-in-process.ts';
import type { Finished } from '../../support/cli-process.ts';
import { localDynamoClient } from '../../support/dynamodb.ts';
import { schemaErrors } from '../../support/json-schemas.ts';

const tableName = `cli-learning-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
let dataDir: string;
let runId = '';

/** The bin's command in process, as a responder named `responder`, on the test run's DynamoDB Local and this file's table. */
function diagnosis(args: string[], extra: Record<string, string> = {}): Promise<Finished> {
  return runInProcess(args, {
    USER: 'responder',
    DIAGNOSIS_LOCAL_DATA: dataDir,
    DYNAMODB_ENDPOINT: inject('dynamodbEndpoint'),
    DIAGNOSIS_TABLE_NAME: tableName,
    ...extra,
  });
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'diagnosis-cli-learning-'));
  const demo = await diagnosis(['demo', '--json']);
  expect(demo.code).toBe(0);
  runId = String(JSON.parse(demo.stdout).runId);
}, 120_000);
afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

describe('diagnosis feedback', () => {
  it('rates a run once per caller, keeps a re-rating, and lists the ratings', async () => {
    const none = await diagnosis(['feedback', runId, '--json']);
    expect(none).toMatchObject({ code: 0, stdout: '[]\n' });
    expect(schemaErrors('run-feedback', JSON.parse(none.stdout))).toEqual([]);
    const first = await diagnosis(['feedback', runId, '--verdict', 'CORRECT']);
    const remembered = `memory: remembered as a past incident of E1001: its later runs meet it as a lead to check, never as evidence (diagnosis memory list --enterprise E1001)\n`;
    expect(first).toMatchObject({
      code: 0,
      stdout: `run ${runId}: rated CORRECT (rating 1 by local:responder)\n${remembered}`,
    });
    const again = await diagnosis(['feedback', runId, '--verdict', 'CORRECT']);
    expect(again.stdout).toBe(`run ${runId}: already rated CORRECT (rating 1 by local:responder)\n${remembered}`);
    const memory = await diagnosis(['memory', 'list', '--enterprise', 'E1001']);
    expect(memory.code, memory.stderr).toBe(0);
    const [header, row, ...more] = memory.stdout.split('\n');
    expect(header).toMatch(/^DIAGNOSED \(UTC\) +RATING +RUN +CONCLUSION$/);
    expect(row).toMatch(new RegExp(`^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2} +CORRECT +${runId} +\\S`));
    // The columns line up under their names.
    expect(row?.indexOf(runId)).toBe(header?.indexOf('RUN'));
    expect(more).toEqual(['']);
    // The next run of the enterprise meets it: its report and its trace page show it as a lead, not evidence.
    const next = await diagnosis(['demo']);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stdout).toContain('1 past incident (a lead, not evidence)');
    expect(next.stdout).toMatch(
      new RegExp(`^见过的历史事件 Seen before \\(.*never evidence\\)\\n  - run ${runId} · diagnosed `, 'm'),
    );
    // The scripted judge's verdicts are marked scripted wherever they are printed: the report, its evidence, the page.
    expect(next.stdout).toContain(
      "语义校验 SemanticGuard (enforce, judge scripted-judge: SCRIPTED, hand-written verdicts, not a model's judgement)",
    );
    const verdicts = next.stdout.match(/^ {2}(结论 conclusion|分析 \d+): .*$/gm) ?? [];
    expect(verdicts.length).toBeGreaterThan(1);
    for (const line of verdicts) expect(line).toMatch(/: (SUPPORTED|UNCLEAR|UNSUPPORTED) \(scripted\) — /);
    const judged = next.stdout.match(/judge 分析 \d+: [A-Z]+[^·\n]*/g) ?? [];
    expect(judged.length).toBeGreaterThan(0);
    for (const verdict of judged) expect(verdict).toContain(' (scripted)');
    const nextRunId = /^run (\w{26}) {3}status/m.exec(next.stdout)?.[1] ?? '';
    const traced = await diagnosis(['trace', nextRunId]);
    expect(traced.code, traced.stderr).toBe(0);
    expect(traced.stdout).toMatch(
      new RegExp(`^见过的历史事件 Seen before \\(.*never evidence\\):\\n  run ${runId} · diagnosed `, 'm'),
    );
    const page = readFileSync(join(dataDir, 'traces', `${nextRunId}.html`), 'utf8');
    expect(page).toMatch(new RegExp(`<ul id="seen-before"><li>run ${runId} · diagnosed [^<]+ · rated CORRECT`));
    expect(page).toContain('<p class="muted" id="scripted-judge">The judge\'s verdicts here are SCRIPTED');
    expect(page).not.toMatch(/judge on finding \d+: [A-Z]+ —/);
    expect(page).toMatch(/judge on finding \d+: [A-Z]+ \(scripted\) —/);
    // Another responder's WRONG retracts the memory, and says so.
    const retracted = await diagnosis(['feedback', runId, '--verdict', 'WRONG'], { USER: 'second' });
    expect(retracted).toMatchObject({
      code: 0,
      stdout: `run ${runId}: rated WRONG (rating 1 by local:second)\nmemory: the run's past incident is retracted for good: E1001's later runs no longer meet it\n`,
    });
    const wrong = await diagnosis([
      'feedback',
      runId,
      '--verdict',
      'WRONG',
      '--root-cause',
      'payment-gateway 的 TLS 证书过期',
      '--json',
    ]);
    expect(wrong.code, wrong.stderr).toBe(0);
    const recorded = JSON.parse(wrong.stdout);
    expect(recorded).toMatchObject({
      runId,
      created: true,
      feedback: { verdict: 'WRONG', rootCause: 'payment-gateway 的 TLS 证书过期', sequence: 2, current: true },
    });
    expect(schemaErrors('run-feedback', recorded)).toEqual([]);
    expect(await diagnosis(['memory', 'list', '--enterprise', 'E1001'])).toMatchObject({
      code: 0,
      stdout: 'E1001: no past incidents\n',
    });
    const list = await diagnosis(['feedback', runId]);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^ {2}CORRECT +local:responder #1 /m);
    expect(list.stdout).toMatch(/^\* WRONG +local:responder #2 /m);
    expect(list.stdout).toContain('root cause: payment-gateway 的 TLS 证书过期');
    const listed = await diagnosis(['feedback', runId, '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    const entries = JSON.parse(listed.stdout) as Record<string, unknown>[];
    const responders = entries.filter((entry) => entry.caller === 'local:responder');
    expect(responders.map((entry) => [entry.verdict, entry.sequence, entry.current])).toEqual([
      ['CORRECT', 1, false],
      ['WRONG', 2, true],
    ]);
    expect(schemaErrors('run-feedback', entries)).toEqual([]);

    // The schema refuses what the output never is: an unknown field, a verdict of no rating, a missing field.
    const [entry] = entries as [Record<string, unknown>];
    expect(schemaErrors('run-feedback', [{ ...entry, callerKey: 'x' }])).toContain(
      '/0 must NOT have additional properties',
    );
    expect(schemaErrors('run-feedback', [{ ...entry, verdict: 'MAYBE' }])).toContain(
      '/0/verdict must be equal to one of the allowed values',
    );
    const { created: _created, ...noCreated } = recorded;
    expect(schemaErrors('run-feedback', noCreated)).toContain("/ must have required property 'created'");
    expect(schemaErrors('run-feedback', { ...recorded, feedback: [recorded.feedback] })).toContain(
      '/feedback must be object',
    );
  }, 60_000);

  it.each([
    [['feedback', 'no-such-run', '--verdict', 'WRONG'], 3, /^diagnosis feedback: no run no-such-run in table /],
    [['feedback', 'x', '--verdict', 'MAYBE'], 64, /^diagnosis feedback: fields at fault: verdict/],
    [['feedback', 'RUN#1', '--verdict', 'WRONG'], 64, /is not a run id/],
    [['feedback'], 64, /^diagnosis feedback: no run id/],
  ])('refuses %j with exit %i', async (args, code, message) => {
    const finished = await diagnosis(args);
    expect(finished.code).toBe(code);
    expect(finished.stderr).toMatch(message);
  });
});

describe('diagnosis feedback, remembered', () => {
  it("keeps a CORRECT run's past incident for PAST_INCIDENT_RETENTION_DAYS, and refuses a bad value before starting", async () => {
    const demo = await diagnosis(['demo', '--json']);
    expect(demo.code).toBe(0);
    const rememberedId = String(JSON.parse(demo.stdout).runId);
    const rated = await diagnosis(['feedback', rememberedId, '--verdict', 'CORRECT', '--json'], {
      PAST_INCIDENT_RETENTION_DAYS: '7',
    });
    expect(rated.code).toBe(0);
    const ratedAt = Date.parse(String(JSON.parse(rated.stdout).feedback.createdAt));
    const client = localDynamoClient();
    try {
      const run = await createDynamoRunStore({ client, tableName }).getRun(rememberedId);
      const memory = await createDynamoPastIncidentStore({ client, tableName }).get(
        String(run?.enterpriseId),
        rememberedId,
        Date.now(),
      );
      expect(memory?.expiresAt).toBe(ratedAt + 7 * 86_400_000);
    } finally {
      client.destroy();
    }
    const bad = await diagnosis(['feedback', rememberedId, '--verdict', 'CORRECT'], {
      PAST_INCIDENT_RETENTION_DAYS: '731',
    });
    expect(bad.code).toBe(78);
    expect(bad.stderr).toMatch(/invalid settings: PAST_INCIDENT_RETENTION_DAYS \(/);
  }, 120_000);
});

describe('diagnosis reveal --json', () => {
  it('prints each pseudonym of the run with its kind and value, and [] for a run that made none', async () => {
    const revealed = await diagnosis(['reveal', runId, '--json']);
    expect(revealed.code, revealed.stderr).toBe(0);
    const entries = JSON.parse(revealed.stdout) as { token: string; kind: string; value: string }[];
    expect(entries.length).toBeGreaterThan(0);
    expect(schemaErrors('reveal-entries', entries)).toEqual([]);
    for (const { token, kind } of entries) expect(token.startsWith(`<${kind}:`)).toBe(true);
    // A run that never masked anything (started in the table, never run): no pseudonym map at all.
    const quiet = `${runId}-quiet`;
    await createDynamoRunStore({ client: localDynamoClient(), tableName }).startRun({
      runId: quiet,
      sessionId: 'quiet-session',
      enterpriseId: 'E1001',
      query: 'q',
      continueSession: false,
    });
    const none = await diagnosis(['reveal', quiet, '--json']);
    expect(none).toMatchObject({ code: 0, stdout: '[]\n' });
    expect(schemaErrors('reveal-entries', JSON.parse(none.stdout))).toEqual([]);

    // The schema refuses what the output never is: an unknown field, a token of no pseudonym form, a missing value.
    const [entry] = entries;
    expect(schemaErrors('reveal-entries', [{ ...entry, sealed: 'x' }])).toContain(
      '/0 must NOT have additional properties',
    );
    expect(schemaErrors('reveal-entries', [{ ...entry, token: '[REDACTED:password]' }])).toContain(
      '/0/token must match pattern "^<([a-z][a-z0-9_]{0,23}):([a-z2-7]{5,13})>$"',
    );
    expect(schemaErrors('reveal-entries', [{ ...entry, kind: 'Phone' }])).not.toEqual([]);
    const { value: _value, ...noValue } = entry ?? {};
    expect(schemaErrors('reveal-entries', [noValue])).toContain("/0 must have required property 'value'");
  });
});

describe('diagnosis eval capture, replay and compare', () => {
  it('captures the rated run, replays it offline as a regression, and compare shows what changed', async () => {
    const corpus = join(dataDir, 'corpus');
    const out = join(corpus, 'captured-demo');
    const captured = await diagnosis(['eval', 'capture', runId, '--out', out]);
    expect(captured.code, captured.stderr).toBe(0);
    expect(captured.stdout).toMatch(
      /^scenario captured-demo written to .*: scenario\.json [\d,]+ B, world\/recorded\.json [\d,]+ B, scripted\.json [\d,]+ B\n/,
    );
    expect(captured.stdout).toContain('missing: the deployment time zone is not in the audit');
    const twice = await diagnosis(['eval', 'capture', runId, '--out', out]);
    expect(twice).toMatchObject({ code: 64 });
    expect(twice.stderr).toContain('exists already');
    expect((await diagnosis(['eval', 'capture', 'no-such-run', '--out', join(corpus, 'x')])).code).toBe(3);
    expect((await diagnosis(['eval', '--out', out])).stderr).toContain('--out is an option of eval capture');

    const report = await diagnosis(['eval', '--scenarios', corpus, '--json']);
    expect(report.code).toBe(0);
    const scorecard = JSON.parse(report.stdout);
    expect(scorecard.scenarios[0]).toMatchObject({
      id: 'captured-demo',
      verdict: 'CONFIDENTLY_WRONG',
      passed: true,
      captured: { runId, feedbackVerdict: 'WRONG', regressed: true },
    });
    const after = join(dataDir, 'after.json');
    const before = join(dataDir, 'before.json');
    writeFileSync(after, report.stdout);
    const earlier = structuredClone(scorecard);
    earlier.scenarios[0].verdict = 'CORRECT';
    earlier.scenarios[0].captured.regressed = false;
    writeFileSync(before, JSON.stringify(earlier));
    const compared = await diagnosis(['eval', 'compare', before, after]);
    expect(compared.code).toBe(1);
    expect(compared.stdout).toMatch(/^REGRESSED {2}captured-demo {2}CORRECT → CONFIDENTLY_WRONG/m);
    // Nothing regressed, in --json: the same scorecard against one with a process figure changed, a scenario it adds
    // and one it adds without running (the states a side without a verdict has).
    const wider = structuredClone(scorecard);
    wider.scenarios[0].process.rounds += 1;
    wider.scenarios.push({ ...wider.scenarios[0], id: 'added-scenario', captured: null });
    wider.scenarios.push({ ...wider.scenarios[0], id: 'not-run-scenario', status: 'SKIPPED', verdict: null });
    const widerPath = join(dataDir, 'wider.json');
    writeFileSync(widerPath, JSON.stringify(wider));
    const same = await diagnosis(['eval', 'compare', after, widerPath, '--json']);
    expect(same.code, same.stderr).toBe(0);
    const comparison = JSON.parse(same.stdout);
    expect(schemaErrors('eval-comparison', comparison)).toEqual([]);
    const rounds = scorecard.scenarios[0].process.rounds;
    expect(comparison).toMatchObject({ regressions: 0, improvements: 0, meanPointsBefore: -1, meanPointsAfter: -1 });
    // Sorted by id.
    expect(comparison.scenarios).toEqual([
      expect.objectContaining({
        id: 'added-scenario',
        before: 'ABSENT',
        after: 'CONFIDENTLY_WRONG',
        pointsChange: null,
      }),
      {
        id: 'captured-demo',
        category: scorecard.scenarios[0].category,
        before: 'CONFIDENTLY_WRONG',
        after: 'CONFIDENTLY_WRONG',
        pointsChange: 0,
        regressed: false,
        improved: false,
        processChanges: [`rounds ${rounds} → ${rounds + 1}`],
      },
      expect.objectContaining({ id: 'not-run-scenario', before: 'ABSENT', after: 'NOT_RUN', regressed: false }),
    ]);
    // The schema refuses what a comparison never is: an unknown field, a word of no state, a missing total, a
    // regression that is also an improvement, a figure the comparison does not name.
    const row = comparison.scenarios[1];
    const withRow = (changed: Record<string, unknown>) =>
      schemaErrors('eval-comparison', { ...comparison, scenarios: [{ ...row, ...changed }] });
    expect(schemaErrors('eval-comparison', { ...comparison, secret: 'x' })).toEqual([
      '/ must NOT have additional properties',
    ]);
    expect(withRow({ after: 'NOT_RAN' })).not.toEqual([]);
    expect(withRow({ regressed: true, improved: true })).toContain('/scenarios/0 must NOT be valid');
    expect(withRow({ processChanges: ['latency 1 → 2'] })).not.toEqual([]);
    const { regressions: _regressions, ...noTotal } = comparison;
    expect(schemaErrors('eval-comparison', noTotal)).toEqual(["/ must have required property 'regressions'"]);
    const notScorecard = join(dataDir, 'not.json');
    writeFileSync(notScorecard, '{"version":2}');
    expect((await diagnosis(['eval', 'compare', notScorecard, after])).stderr).toMatch(/is not a scorecard/);
    expect(readFileSync(join(out, 'scripted.json'), 'utf8')).toContain('RECORDED, not scripted');
  }, 180_000);
});

// NOTE: last, so the ratings it adds are not the newest when the run is captured above.
describe('diagnosis feedback, masked', () => {
  it("masks a rating with the local runs' own patterns (MASKING_PATTERNS), and refuses a bad one before starting", async () => {
    const patterns = { MASKING_PATTERNS: '[{"kind":"ticket","pattern":"TCK-[0-9]{6}"}]', USER: 'reviewer' };
    const rated = await diagnosis(
      [
        'feedback',
        runId,
        '--verdict',
        'UNHELPFUL',
        '--note',
        '见工单 TCK-482913，联系 ops.lead@example-mail.cn',
        '--json',
      ],
      patterns,
    );
    expect(rated.code).toBe(0);
    const note = String(JSON.parse(rated.stdout).feedback.note);
    expect(note).not.toContain('TCK-482913');
    expect(note).not.toContain('ops.lead@example-mail.cn');
    expect(note).toMatch(/^见工单 <ticket:[a-z2-7]{5,13}>，联系 <email:[a-z2-7]{5,13}>$/);
    const listed = await diagnosis(['feedback', runId, '--json']);
    expect(listed.stdout).not.toContain('TCK-482913');
    // A pattern RE2 refuses: named with its form, exit 78, and nothing started (no engine file in a fresh folder).
    const fresh = mkdtempSync(join(tmpdir(), 'diagnosis-cli-learning-bad-'));
    try {
      const bad = await diagnosis(['feedback', runId, '--verdict', 'WRONG'], {
        MASKING_PATTERNS: '[{"kind":"ticket","pattern":"(("}]',
        DIAGNOSIS_LOCAL_DATA: fresh,
        DYNAMODB_ENDPOINT: '',
      });
      expect(bad.code).toBe(78);
      expect(bad.stderr).toMatch(/invalid settings: MASKING_PATTERNS \(/);
      expect(bad.stderr).not.toContain('((');
      expect(readdirSync(fresh)).toEqual([]);
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  }, 60_000);
});
