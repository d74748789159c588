/**
 * Capture → replay, end to end: the demo's diagnosis through the real Diagnose handler (DynamoDB Local, the loopback
 * DeepSeek server, the SemanticGuard enforcing), a responder's verdict through the real feedback handler, the run
 * captured from the table (read-only: Get and Query only), and the captured scenario replayed offline by the eval
 * through the real pipeline again: the same outcome; a changed tool input answered NOT_RECORDED; a WRONG run whose
 * replay repeats its conclusion scored as a regression; `compare` naming it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DiagnosisResult } from '@diagnosis/core';
import {
  captureRun,
  compareReports,
  DEFAULT_PRICE,
  type EvalReport,
  loadScenario,
  parseComparableReport,
  renderComparison,
  runEval,
} from '@diagnosis/eval';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { localDynamoClient, recordCommands } from '../../support/dynamodb.ts';
import { startE2eWorld } from '../../support/e2e-world.ts';
import { schemaErrors } from '../../support/json-schemas.ts';
import { e1001ScriptedConversation, httpEvent, lambdaContext } from '../../support/lambda-events.ts';
import { tempDir } from '../../support/temp-dir.ts';

const ALICE = { accountId: '111122223333', userArn: 'arn:aws:sts::111122223333:assumed-role/OpsE1001/alice' };
const conversation = e1001ScriptedConversation();
let world: Awaited<ReturnType<typeof startE2eWorld>>;
const client = localDynamoClient();
const commands = recordCommands(client);
const runs: Record<'right' | 'wrong', { runId: string; result: DiagnosisResult }> = {} as never;

async function diagnose(label: 'right' | 'wrong') {
  const runId = `capture-${label}-${Date.now().toString(36)}`;
  world.server.script.push(...structuredClone(conversation.responses));
  world.server.judgeScript.push(...structuredClone(conversation.judgeResponses));
  const result = (await world.handlers.diagnose(
    { runId, sessionId: `s-${label}`, enterpriseId: 'E1001', query: conversation.query },
    lambdaContext(60_000),
  )) as DiagnosisResult;
  expect(result.status).toBe('PUBLISHED');
  runs[label] = { runId, result };
}

async function rate(runId: string, body: Record<string, unknown>) {
  const response = (await world.handlers.runFeedback(
    httpEvent({ pathParameters: { runId }, body: JSON.stringify(body), iam: ALICE }),
    lambdaContext(5_000),
  )) as { statusCode: number };
  expect(response.statusCode).toBe(201);
}

async function capture(runId: string, out: string) {
  const outcome = await captureRun({
    runId,
    out,
    timeZone: 'Asia/Shanghai',
    client,
    tableName: world.tableName,
    sourceName: 'DynamoDB Local',
  });
  if (!outcome.ok) throw new Error(outcome.message);
  return outcome;
}

const replay = (dirs: string[]): Promise<EvalReport> =>
  runEval(
    dirs.map((dir) => loadScenario(dir)),
    {
      mode: 'offline',
      concurrency: 1,
      price: DEFAULT_PRICE,
      mysqlAdminUrl: undefined,
      liveSettings: {},
      totalTokenCap: 1_000_000,
      runTimeoutMs: 120_000,
      dynamoEndpoint: inject('dynamodbEndpoint'),
    },
  );

beforeAll(async () => {
  world = await startE2eWorld({ SEMANTIC_GUARD: 'enforce' });
  await diagnose('right');
  await diagnose('wrong');
  await rate(runs.right.runId, { verdict: 'CORRECT' });
  await rate(runs.wrong.runId, { verdict: 'WRONG', rootCause: 'payment-gateway 的 TLS 证书在 14:05 过期' });
}, 120_000);
afterAll(async () => {
  client.destroy();
  await world?.cleanup();
});

describe('diagnosis eval capture and its offline replay', () => {
  it('captures a rated run with Get and Query only, and its replay through the real pipeline ends the same', async () => {
    const root = await tempDir('capture-');
    const dir = join(root, 'captured-right');
    commands.length = 0;
    const outcome = await capture(runs.right.runId, dir);
    expect(new Set(commands)).toEqual(new Set(['GetItemCommand', 'QueryCommand']));
    expect(Object.keys(outcome.sizes).sort()).toEqual(['scenario.json', 'scripted.json', 'world/recorded.json']);

    const scenario = loadScenario(dir);
    expect(scenario).toMatchObject({
      category: 'logs',
      enterpriseId: 'E1001',
      query: conversation.query,
      timeZone: 'Asia/Shanghai',
      capture: { runId: runs.right.runId, feedback: { verdict: 'CORRECT' }, original: { status: 'PUBLISHED' } },
      expected: { outcome: 'DIAGNOSIS', mustNotClaim: [] },
    });
    expect(scenario.recording?.calls).toHaveLength(4);
    expect(scenario.scripted?.description).toMatch(/^RECORDED, not scripted/);
    expect(scenario.scripted?.responses).toHaveLength(5);
    expect(scenario.scripted?.judge).toHaveLength(1);

    const report = await replay([dir]);
    const [row] = report.scenarios;
    const original = runs.right.result.report as { draft: { conclusion: string } };
    expect(row).toMatchObject({
      status: 'RAN',
      verdict: 'CORRECT',
      passed: true,
      captured: {
        runId: runs.right.runId,
        feedbackVerdict: 'CORRECT',
        replayedStatus: 'PUBLISHED',
        replayedConclusion: original.draft.conclusion,
        regressed: false,
        notRecorded: 0,
      },
    });
    expect(row?.usage.totalTokens).toBe(runs.right.result.usage.totalTokens);
    expect(row?.process).toMatchObject({
      rounds: 5,
      judgeCalls: 1,
      toolCalls: { executed: 4, evidence: 4, refused: 0 },
    });
    expect(report.summary.captured).toEqual({ scenarios: 1, regressed: 0 });
    // The captured row is part of the published `eval --json` scorecard (docs/schemas/eval-report.schema.json).
    expect(schemaErrors('eval-report', JSON.parse(JSON.stringify(report)))).toEqual([]);
  }, 120_000);

  it('answers a tool input the recording does not hold with NOT_RECORDED, never with evidence', async () => {
    const root = await tempDir('capture-');
    const dir = join(root, 'captured-changed');
    await capture(runs.right.runId, dir);
    const path = join(dir, 'scripted.json');
    const scripted = JSON.parse(readFileSync(path, 'utf8'));
    const call = scripted.responses[1].choices[0].message.tool_calls[0];
    const args = JSON.parse(call.function.arguments);
    args.input.keyword = 'a-keyword-the-run-never-asked';
    call.function.arguments = JSON.stringify(args);
    writeFileSync(path, JSON.stringify(scripted));

    const [row] = (await replay([dir])).scenarios;
    expect(row?.captured?.notRecorded).toBe(1);
    expect(row?.process?.toolCalls).toMatchObject({ error: 1 });
    expect(row?.notes).toContain('1 tool call(s) not in the recording (NOT_RECORDED)');
  }, 120_000);

  it('scores a captured WRONG run whose replay repeats its conclusion as a regression, and compare names it', async () => {
    const root = await tempDir('capture-');
    const right = join(root, 'captured-right');
    const wrong = join(root, 'captured-wrong');
    await capture(runs.right.runId, right);
    await capture(runs.wrong.runId, wrong);
    const scenario = loadScenario(wrong);
    const conclusion = (runs.wrong.result.report as { draft: { conclusion: string } }).draft.conclusion;
    expect(scenario.expected).toMatchObject({
      outcome: 'DIAGNOSIS',
      rootCause: { anyOf: [['payment-gateway', 'TLS']] },
      mustNotClaim: [conclusion.slice(0, 200)],
      scripted: { verdict: 'CONFIDENTLY_WRONG' },
    });

    const report = await replay([right, wrong]);
    const row = report.scenarios.find((candidate) => candidate.id === 'captured-wrong');
    expect(row).toMatchObject({
      verdict: 'CONFIDENTLY_WRONG',
      passed: true,
      captured: { feedbackVerdict: 'WRONG', replayedConclusion: conclusion, regressed: true },
    });
    expect(report.summary.captured).toEqual({ scenarios: 2, regressed: 1 });

    // Compared with a scorecard in which that scenario was answered right (its row edited to CORRECT, as a model that
    // got it right would score), this replay is a regression, and only it.
    const fixed = structuredClone(report);
    Object.assign(fixed.scenarios.find((candidate) => candidate.id === 'captured-wrong') ?? {}, {
      verdict: 'CORRECT',
      captured: { ...row?.captured, regressed: false },
    });
    const before = parseComparableReport(JSON.parse(JSON.stringify(fixed)));
    const after = parseComparableReport(JSON.parse(JSON.stringify(report)));
    if (!before.ok || !after.ok) throw new Error('not comparable');
    const comparison = compareReports(before.report, after.report);
    expect(comparison.regressions).toBe(1);
    expect(comparison.scenarios.find((item) => item.regressed)).toMatchObject({
      id: 'captured-wrong',
      before: 'CORRECT',
      after: 'CONFIDENTLY_WRONG',
      pointsChange: -2,
    });
    expect(renderComparison(comparison)).toMatch(/^REGRESSED {2}captured-wrong {2}CORRECT → CONFIDENTLY_WRONG/m);
  }, 180_000);
});
