/**
 * The learning loop through the `diagnosis` bin in child processes, on the test run's DynamoDB Local: the demo's run
 * rated with `diagnosis feedback`, captured with `diagnosis eval capture`, replayed by `diagnosis eval --scenarios`,
 * and two scorecards compared with `diagnosis eval compare`.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const CLI = 'packages/cli/src/main.ts';
const tableName = `cli-learning-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
let dataDir: string;
let runId = '';

function diagnosis(
  args: string[],
  extra: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      USER: 'responder',
      DIAGNOSIS_LOCAL_DATA: dataDir,
      DYNAMODB_ENDPOINT: inject('dynamodbEndpoint'),
      DIAGNOSIS_TABLE_NAME: tableName,
      ...extra,
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((done) => child.on('exit', (code) => done({ code, stdout, stderr })));
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
    const first = await diagnosis(['feedback', runId, '--verdict', 'CORRECT']);
    expect(first).toMatchObject({ code: 0, stdout: `run ${runId}: rated CORRECT (rating 1 by local:responder)\n` });
    const again = await diagnosis(['feedback', runId, '--verdict', 'CORRECT']);
    expect(again.stdout).toBe(`run ${runId}: already rated CORRECT (rating 1 by local:responder)\n`);
    const wrong = await diagnosis([
      'feedback',
      runId,
      '--verdict',
      'WRONG',
      '--root-cause',
      'payment-gateway 的 TLS 证书过期',
    ]);
    expect(wrong.stdout).toContain('rated WRONG (rating 2');
    const list = await diagnosis(['feedback', runId]);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^ {2}CORRECT +local:responder #1 /m);
    expect(list.stdout).toMatch(/^\* WRONG +local:responder #2 /m);
    expect(list.stdout).toContain('root cause: payment-gateway 的 TLS 证书过期');
  }, 60_000);

  it("masks a rating with the local runs' own patterns (MASKING_PATTERNS), and refuses a bad one before starting", async () => {
    const patterns = { MASKING_PATTERNS: '[{"kind":"ticket","pattern":"TCK-[0-9]{6}"}]' };
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

describe('diagnosis eval capture, replay and compare', () => {
  it('captures the rated run, replays it offline as a regression, and compare shows what changed', async () => {
    const corpus = join(dataDir, 'corpus');
    const out = join(corpus, 'captured-demo');
    const captured = await diagnosis(['eval', 'capture', runId, '--out', out]);
    expect(captured.code).toBe(0);
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
    expect((await diagnosis(['eval', 'compare', after, after])).code).toBe(0);
    const notScorecard = join(dataDir, 'not.json');
    writeFileSync(notScorecard, '{"version":2}');
    expect((await diagnosis(['eval', 'compare', notScorecard, after])).stderr).toMatch(/is not a scorecard/);
    expect(readFileSync(join(out, 'scripted.json'), 'utf8')).toContain('RECORDED, not scripted');
  }, 180_000);
});
