/**
 * Issue 24, "masked recordings replay as recorded": a captured run holds what its model saw — pseudonyms included —
 * and nothing unmasked, and its replay serves those observations and matches a tool argument against the recorded
 * inputs as the recording saw them. The demo's diagnosis on the example world (whose logs hold real-looking phone
 * numbers and IP addresses) through the real Diagnose handler, with one more query_logs call whose keyword is the
 * pseudonym of a phone number the model was shown (as a model that follows a customer would ask); a rating whose
 * texts hold canaries; the capture; its offline replay through the eval's composition. And the switch that lets a
 * replay pass the recording's pseudonyms is out of a deployment's reach: the deployed handler, with every setting
 * that might name it in its environment and the field in its event, still refuses a pseudonym it has not shown.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  DEVELOPMENT_MASKING_SECRET,
  type DiagnosisResult,
  openPseudonymBatches,
  PSEUDONYM_PATTERN,
} from '@diagnosis/core';
import { createDynamoRunStore, type StoredToolInvocation } from '@diagnosis/core/store';
import type { DeepSeekResponse } from '@diagnosis/devkit';
import { captureRun, DEFAULT_PRICE, type EvalReport, loadScenario, runEval } from '@diagnosis/eval';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { localDynamoClient } from '../../support/dynamodb.ts';
import { startE2eWorld } from '../../support/e2e-world.ts';
import { e1001ScriptedConversation, httpEvent, lambdaContext } from '../../support/lambda-events.ts';
import { tempDir } from '../../support/temp-dir.ts';

const ALICE = { accountId: '111122223333', userArn: 'arn:aws:sts::111122223333:assumed-role/OpsE1001/alice' };
const EXTRA_CALL_ID = 'call_00_FollowTheCustomerPhone0001';
const MADE_UP = '<phone:zzzzz>';
const conversation = e1001ScriptedConversation();
const client = localDynamoClient();
let world: Awaited<ReturnType<typeof startE2eWorld>>;
const runId = `masked-capture-${Date.now().toString(36)}`;
let result: DiagnosisResult;
/** The pseudonym of a phone number the model was shown, which it then asked for. */
let followed = '';
const tag = Math.random().toString(36).slice(2, 10);
const canaries = { email: `canary.${tag}@customer-mail.cn`, secret: `Canary${tag}Secret` };
let phoneValue = '';

type ToolCall = { id: string; type: 'function'; function: { name: string; arguments: string } };
const callsOf = (response: DeepSeekResponse) =>
  (response as unknown as { choices: { message: { tool_calls?: ToolCall[] } }[] }).choices[0]?.message.tool_calls ?? [];

/** The third agent round of the demo, plus a query_logs call for the first phone pseudonym the model was shown. */
function followThePhone(round: DeepSeekResponse) {
  return (request: Record<string, unknown>): DeepSeekResponse => {
    const token = JSON.stringify(request.messages).match(/<phone:[a-z2-7]{5,13}>/)?.[0];
    if (token === undefined) throw new Error('the model was shown no phone number');
    followed = token;
    const reply = structuredClone(round);
    const [first] = callsOf(reply);
    if (first === undefined) throw new Error('the round asks for no tool');
    callsOf(reply).push({
      id: EXTRA_CALL_ID,
      type: 'function',
      function: {
        name: 'query_logs',
        arguments: JSON.stringify({
          previous_observation: { tool_call_id: first.id, evaluation: 'GAINED' },
          input: {
            service: 'order-service',
            start_time: '2026-11-30T14:00:00+08:00',
            end_time: '2026-11-30T15:00:00+08:00',
            keyword: token,
            limit: 5,
          },
        }),
      },
    });
    return reply;
  };
}

const replay = (dir: string): Promise<EvalReport> =>
  runEval([loadScenario(dir)], {
    mode: 'offline',
    concurrency: 1,
    price: DEFAULT_PRICE,
    mysqlAdminUrl: undefined,
    liveSettings: {},
    totalTokenCap: 1_000_000,
    runTimeoutMs: 120_000,
    dynamoEndpoint: inject('dynamodbEndpoint'),
  });

/** Every file under `dir`, as text. */
function filesUnder(dir: string): { path: string; text: string }[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [{ path, text: readFileSync(path, 'utf8') }];
  });
}

async function toolsOf(id: string): Promise<StoredToolInvocation[]> {
  const store = createDynamoRunStore({ client, tableName: world.tableName });
  const { records } = await store.listRunRecords(id, { limit: 100 });
  return records.filter((record): record is StoredToolInvocation => record.entity === 'tool_invocation');
}

beforeAll(async () => {
  // NOTE: every name a setting could give the replay switch, in the deployed function's environment: none reaches it.
  world = await startE2eWorld({
    SEMANTIC_GUARD: 'enforce',
    RECORDED_REPLAY: 'on',
    RECORDED_PSEUDONYMS: MADE_UP,
    MASKING_REPLAY: 'true',
    recordedReplay: JSON.stringify({ recordedPseudonyms: [MADE_UP] }),
  });
  const [r0, r1, r2, ...rest] = structuredClone(conversation.responses);
  if (r0 === undefined || r1 === undefined || r2 === undefined) throw new Error('the demo has fewer rounds');
  // The round after it names the new call as the one it evaluates (each call evaluates the one before it).
  const [next] = callsOf(rest[0] as DeepSeekResponse);
  if (next === undefined) throw new Error('the demo has fewer rounds');
  const nextArgs = JSON.parse(next.function.arguments) as Record<string, unknown>;
  next.function.arguments = JSON.stringify({
    ...nextArgs,
    previous_observation: { tool_call_id: EXTRA_CALL_ID, evaluation: 'NO_GAIN' },
  });
  world.server.script.push(r0, r1, followThePhone(r2), ...rest);
  world.server.judgeScript.push(...structuredClone(conversation.judgeResponses));
  result = (await world.handlers.diagnose(
    { runId, sessionId: 's-masked', enterpriseId: 'E1001', query: conversation.query },
    lambdaContext(60_000),
  )) as DiagnosisResult;
  expect(result.status).toBe('PUBLISHED');
  const store = createDynamoRunStore({ client, tableName: world.tableName });
  const map = openPseudonymBatches(DEVELOPMENT_MASKING_SECRET, runId, (await store.listPseudonyms(runId)).records);
  phoneValue = map.find((entry) => entry.token === followed)?.value ?? '';
  const response = (await world.handlers.runFeedback(
    httpEvent({
      pathParameters: { runId },
      iam: ALICE,
      body: JSON.stringify({
        verdict: 'CORRECT',
        rootCause: `客户 ${phoneValue} 的订单失败，联系 ${canaries.email}`,
        note: `payment-gateway 的 password=${canaries.secret} 没变`,
      }),
    }),
    lambdaContext(5_000),
  )) as { statusCode: number };
  expect(response.statusCode).toBe(201);
}, 120_000);
afterAll(async () => {
  client.destroy();
  await world?.cleanup();
});

describe('a masked recording replayed as recorded', () => {
  it('was executed in the original run with the pseudonym as its argument (the run restored the value)', async () => {
    const extra = (await toolsOf(runId)).find((tool) => tool.toolCallId === EXTRA_CALL_ID);
    expect(extra).toMatchObject({ disposition: 'EXECUTED', status: 'READY' });
    expect(JSON.stringify(extra?.input)).toContain(followed);
    expect(phoneValue).toMatch(/^1[3-9][0-9]{9}$/);
  });

  it('is captured with no real value in any file, and replays offline to the same outcome and conclusion', async () => {
    const dir = join(await tempDir('masked-capture-'), 'captured-masked');
    const outcome = await captureRun({
      runId,
      out: dir,
      timeZone: 'Asia/Shanghai',
      client,
      tableName: world.tableName,
      sourceName: 'DynamoDB Local',
    });
    if (!outcome.ok) throw new Error(outcome.message);
    // Every real value behind every pseudonym the run made, and the rating's canaries: in no file of the capture.
    const store = createDynamoRunStore({ client, tableName: world.tableName });
    const values = openPseudonymBatches(
      DEVELOPMENT_MASKING_SECRET,
      runId,
      (await store.listPseudonyms(runId)).records,
    ).map((entry) => entry.value);
    expect(values).toContain(phoneValue);
    expect(values).toContain(canaries.email);
    const files = filesUnder(dir);
    expect(files.map((file) => file.path.slice(dir.length + 1)).sort()).toEqual([
      'scenario.json',
      'scripted.json',
      'world/recorded.json',
    ]);
    for (const file of files) {
      for (const canary of [...values, canaries.secret]) expect(file.text, file.path).not.toContain(canary);
    }
    // What the model saw is there, masked: the pseudonym it asked with, in the recorded input and in the rating.
    const recording = files.find((file) => file.path.endsWith('recorded.json'))?.text ?? '';
    const recordedCalls = (JSON.parse(recording) as { calls: { input: { keyword?: string } }[] }).calls;
    expect(recordedCalls.map((call) => call.input.keyword)).toContain(followed);
    expect(files.find((file) => file.path.endsWith('scenario.json'))?.text).toContain(followed);
    expect([...recording.matchAll(PSEUDONYM_PATTERN)].length).toBeGreaterThan(1);

    const report = await replay(dir);
    const [row] = report.scenarios;
    const original = result.report as { draft: { conclusion: string } };
    expect(row).toMatchObject({
      status: 'RAN',
      verdict: 'CORRECT',
      passed: true,
      captured: { replayedStatus: 'PUBLISHED', replayedConclusion: original.draft.conclusion, notRecorded: 0 },
    });
    // The pseudonym argument matched the recorded input as the recording saw it (nothing NOT_RECORDED, nothing
    // refused) and got the recorded observation: every call ended as it had in the recorded run.
    const stored = await createDynamoRunStore({ client, tableName: world.tableName }).getRun(runId);
    expect(stored?.processScorecard?.toolCalls).toMatchObject({ executed: 5, refused: 0 });
    expect(row?.process?.toolCalls).toEqual(stored?.processScorecard?.toolCalls);
  }, 180_000);

  it('refuses a made-up pseudonym inside the replay (UNKNOWN_PSEUDONYM), as a deployed run would', async () => {
    const dir = join(await tempDir('masked-capture-'), 'captured-made-up');
    const outcome = await captureRun({
      runId,
      out: dir,
      timeZone: 'Asia/Shanghai',
      client,
      tableName: world.tableName,
      sourceName: 'DynamoDB Local',
    });
    if (!outcome.ok) throw new Error(outcome.message);
    const path = join(dir, 'scripted.json');
    writeFileSync(path, readFileSync(path, 'utf8').replaceAll(followed, MADE_UP));

    const [row] = (await replay(dir)).scenarios;

    // Refused at the boundary (it never reached the recording: nothing NOT_RECORDED), as any unknown pseudonym is.
    expect(row?.process?.toolCalls.refusedByCode).toMatchObject({ UNKNOWN_PSEUDONYM: 1 });
    expect(row?.captured?.notRecorded).toBe(0);
  }, 180_000);

  it('cannot be switched on in a deployed function: neither its settings nor its event let a pseudonym through', async () => {
    // The deployed chain, with the hostile environment above: a pseudonym it never showed is refused.
    const deployedRun = `masked-deployed-${Date.now().toString(36)}`;
    const call = callsOf(structuredClone(conversation.responses[1] as DeepSeekResponse))[0];
    if (call === undefined) throw new Error('the demo round asks for no tool');
    const args = JSON.parse(call.function.arguments) as { input: Record<string, unknown> };
    const asking = structuredClone(conversation.responses[1] as DeepSeekResponse);
    const [first] = callsOf(asking);
    if (first === undefined) throw new Error('no call');
    first.function.arguments = JSON.stringify({ ...args, input: { ...args.input, keyword: MADE_UP } });
    world.server.script.push(structuredClone(conversation.responses[0] as DeepSeekResponse), asking);
    world.server.script.push(...structuredClone(conversation.responses.slice(2)));
    world.server.judgeScript.push(...structuredClone(conversation.judgeResponses));
    await world.handlers.diagnose(
      { runId: deployedRun, sessionId: 's-deployed', enterpriseId: 'E1001', query: conversation.query },
      lambdaContext(60_000),
    );
    const refused = (await toolsOf(deployedRun)).find((tool) => JSON.stringify(tool.input).includes(MADE_UP));
    expect(refused).toMatchObject({ disposition: 'REJECTED', code: 'UNKNOWN_PSEUDONYM' });
    // The event cannot carry it either: the payload is strict.
    await expect(
      world.handlers.diagnose(
        {
          runId: `${deployedRun}-event`,
          sessionId: 's-deployed',
          enterpriseId: 'E1001',
          query: conversation.query,
          recordedReplay: { recordedPseudonyms: [MADE_UP] },
        },
        lambdaContext(60_000),
      ),
    ).rejects.toMatchObject({ name: 'DiagnosisInputError' });
    world.server.script.length = 0;
    world.server.judgeScript.length = 0;
  }, 120_000);
});
