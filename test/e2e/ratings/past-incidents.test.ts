/**
 * Past incidents as leads, never as evidence (issue 35), through the real handlers (Diagnose, RunFeedback, GetRun,
 * PastIncidents), DynamoDB Local and the loopback DeepSeek-format server, with scripted conversations: a run rated
 * CORRECT is returned by a later run's `lookup_knowledge`, marked; a finding resting on it alone is removed and the
 * conclusion it carried withdrawn (FALLBACK, as the release policy says of an unsupported conclusion); a finding that
 * cites today's logs beside it is published, with the past run under "seen before"; the responder's text reaches the
 * model masked; a WRONG rating retracts the memory for good.
 * NOTE: over 300 lines on purpose: the cases build on one another's memories in one world (remembered, listed,
 * retracted, masked, one unreadable among them), which a second file would have to build again.
 */

import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { DiagnosisResult } from '@diagnosis/core';
import { createDynamoPastIncidentStore } from '@diagnosis/core/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPastIncidentsHandler } from '../../../functions/api/past-incidents-handler.ts';
import { createObservability } from '../../../functions/lambda/observability.ts';
import { localDynamoClient } from '../../support/dynamodb.ts';
import { startE2eWorld } from '../../support/e2e-world.ts';
import { e1001ScriptedConversation, httpEvent, lambdaContext } from '../../support/lambda-events.ts';
import { draftAnswer } from '../../support/run-fixtures.ts';

const ALICE = { accountId: '111122223333', userArn: 'arn:aws:sts::111122223333:assumed-role/OpsE1001/alice' };
const BOB = { accountId: '111122223333', userArn: 'arn:aws:sts::111122223333:assumed-role/OpsE1001/bob' };
const conversation = e1001ScriptedConversation();
const [lookupRound, logsRound] = conversation.responses;
const LOOKUP_ID = 'call_00_Vw3kQz8RbN2mT6yHcJ5pLx1a';
const LOGS_ID = 'call_00_Hs7dFq2WkZ9nB4vXeR6tMy3c';
/** A customer's phone a responder types into the rating: it must reach no model unmasked. */
const CANARY_PHONE = '13912345678';
/** A hit marked as a past incident, as it appears in a request body (an observation is JSON inside the JSON). */
const MARKED = String.raw`\"source\":\"past_incident\"`;
let world: Awaited<ReturnType<typeof startE2eWorld>>;
let counter = 0;

beforeAll(async () => {
  world = await startE2eWorld();
});
afterAll(async () => {
  await world?.cleanup();
});

/** A scripted final round: the Draft as the model's text. */
function draftRound(draft: object) {
  const round = structuredClone(logsRound) as {
    choices: { message: Record<string, unknown>; finish_reason: string }[];
  };
  const choice = round.choices[0];
  if (choice === undefined) throw new Error('the scripted round has no choice');
  choice.message = { role: 'assistant', content: draftAnswer(draft) };
  choice.finish_reason = 'stop';
  return round;
}

const finding = (statement: string, ids: string[]) => ({
  type: 'FINDING',
  statement,
  evidence_status: 'SUPPORTED',
  tool_call_ids: ids,
  scope: null,
});
const draft = (conclusion: string, analysis: object[]) => ({
  conclusion,
  analysis,
  action_plan: [],
  recommendations: [],
  limitations: { checked_scope: ['知识库与 order-service 日志'], missing_info: [] },
});

async function diagnose(
  responses: unknown[],
  query = conversation.query,
): Promise<{ runId: string; result: DiagnosisResult; sent: string }> {
  counter += 1;
  const runId = `past-incident-${Date.now().toString(36)}-${counter}`;
  const before = world.server.requests.length;
  world.server.script.push(...(structuredClone(responses) as typeof world.server.script));
  const result = (await world.handlers.diagnose(
    { runId, sessionId: `s-${runId}`, enterpriseId: 'E1001', query, continueSession: false },
    lambdaContext(60_000),
  )) as DiagnosisResult;
  return { runId, result, sent: JSON.stringify(world.server.requests.slice(before)) };
}

async function rate(runId: string, verdict: string, iam: Record<string, unknown>, rootCause?: string) {
  return (await world.handlers.runFeedback(
    httpEvent({
      pathParameters: { runId },
      body: JSON.stringify({ verdict, ...(rootCause === undefined ? {} : { rootCause }) }),
      iam,
    }),
    lambdaContext(5_000),
  )) as { statusCode: number };
}

async function getRun(runId: string) {
  const response = (await world.handlers.getRun(
    httpEvent({ method: 'GET', path: `/runs/${runId}`, pathParameters: { runId } }),
    lambdaContext(5_000),
  )) as { statusCode: number; body: string };
  return JSON.parse(response.body) as Record<string, unknown>;
}

describe('past incidents through the real Diagnose path', () => {
  let remembered = '';

  it('remembers a published run rated CORRECT, masked, and shows it on GET /runs/{id}', async () => {
    const { runId, result } = await diagnose(conversation.responses);
    expect(result.status).toBe('PUBLISHED');
    expect((await rate(runId, 'CORRECT', ALICE, `客户 ${CANARY_PHONE} 的支付渠道被误停用`)).statusCode).toBe(201);
    const shown = (await getRun(runId)).pastIncident as Record<string, unknown>;
    expect(shown).toMatchObject({ runId, rating: 'CORRECT', services: ['order-service', 'payment-gateway'] });
    expect(String(shown.rootCause)).not.toContain(CANARY_PHONE);
    expect(String(shown.rootCause)).toMatch(/<phone:[^>]+>/);
    remembered = runId;
  }, 60_000);

  it('removes a finding that rests on the past incident alone and withdraws its conclusion (FALLBACK)', async () => {
    const { result, sent } = await diagnose([
      lookupRound,
      draftRound(
        draft('支付渠道被误停用导致订单失败', [
          finding('这次和上次一样，是支付渠道被误停用', [`past-incident:${remembered}`]),
        ]),
      ),
    ]);
    // The model was shown the past incident, marked, with the responder's text masked.
    expect(sent).toContain(MARKED);
    expect(sent).toContain(`past-incident:${remembered}`);
    expect(sent).not.toContain(CANARY_PHONE);
    expect(result.status).toBe('FALLBACK');
    expect(result.report).toMatchObject({
      kind: 'FALLBACK',
      error_code: 'GUARD_CONCLUSION_UNSUPPORTED',
      evidence_guard: { removed: [{ index: 0, code: 'GUARD_PAST_INCIDENT_ONLY' }] },
    });
    expect(JSON.stringify(result.report)).not.toContain('支付渠道被误停用导致订单失败');
  }, 60_000);

  it('publishes a finding grounded in the runbook the lookup returned beside the past incident', async () => {
    const { result, sent } = await diagnose([
      lookupRound,
      draftRound(
        draft('按运行手册，订单失败时先排查支付链路', [
          finding('运行手册记载：订单大量失败时先检查 payment-gateway 的错误与超时', [LOOKUP_ID]),
        ]),
      ),
    ]);
    // The same lookup returned the past incident beside the runbook: the lookup's id stands for the runbook alone.
    expect(sent).toContain(`past-incident:${remembered}`);
    expect(result.status).toBe('PUBLISHED');
    const report = result.report as unknown as Record<string, unknown>;
    expect(report.evidence_guard).toBeUndefined();
    expect(report.citations).toEqual([{ tool_call_id: LOOKUP_ID, tool_name: 'lookup_knowledge', empty: false }]);
    expect(report.seen_before).toEqual([
      { run_id: remembered, occurred_at: expect.any(String), rating: 'CORRECT', tool_call_ids: [LOOKUP_ID] },
    ]);
  }, 60_000);

  it('publishes a finding that cites today’s logs beside the past incident, with the past run under seen_before', async () => {
    const { runId, result } = await diagnose([
      lookupRound,
      logsRound,
      draftRound(
        draft('订单失败是因为调用 payment-gateway 超时', [
          finding('14:05 之后 order-service 调用 payment-gateway 返回 503 超时，与上次的事件相似', [
            LOOKUP_ID,
            LOGS_ID,
          ]),
          {
            type: 'HYPOTHESIS',
            statement: '可能与上次一样是支付渠道配置问题，需核实',
            evidence_status: 'SUPPORTED',
            tool_call_ids: [LOOKUP_ID],
            scope: null,
          },
        ]),
      ),
    ]);
    expect(result.status).toBe('PUBLISHED');
    const report = result.report as unknown as Record<string, unknown> & { draft: { analysis: unknown[] } };
    expect(report.draft.analysis).toHaveLength(2);
    expect(report.evidence_guard).toBeUndefined();
    expect(report.seen_before).toEqual([
      { run_id: remembered, occurred_at: expect.any(String), rating: 'CORRECT', tool_call_ids: [LOOKUP_ID] },
    ]);
    // "Seen before" is apart from the evidence: the citations name the checks, never the past run.
    expect(JSON.stringify(report.citations)).not.toContain(remembered);
    expect(((await getRun(runId)).report as Record<string, unknown>).seen_before).toEqual(report.seen_before);
  }, 60_000);

  it('lists the enterprise’s past incidents for a caller allowed it, and refuses another enterprise’s caller', async () => {
    const client = localDynamoClient();
    const handler = createPastIncidentsHandler(createDynamoPastIncidentStore({ client, tableName: world.tableName }), {
      ...createObservability('PastIncidents'),
      policy: [{ principal: ALICE.userArn, enterprises: ['E1001'] }],
    });
    const list = (enterpriseId: string, iam: Record<string, unknown>) =>
      handler(
        httpEvent({
          method: 'GET',
          path: `/enterprises/${enterpriseId}/past-incidents`,
          pathParameters: { enterpriseId },
          iam,
        }),
        lambdaContext(5_000),
      ) as Promise<{ statusCode: number; body: string }>;
    const mine = await list('E1001', ALICE);
    expect(mine.statusCode).toBe(200);
    expect(JSON.parse(mine.body).pastIncidents.map((incident: { runId: string }) => incident.runId)).toEqual([
      remembered,
    ]);
    const foreign = await list('E2002', ALICE);
    expect(foreign.statusCode).toBe(403);
    expect(JSON.parse(foreign.body).error.code).toBe('FORBIDDEN_TENANT');
    const outsider = await list('E1001', BOB);
    expect(outsider.statusCode).toBe(403);
    client.destroy();
  }, 30_000);

  it('never returns a memory a later WRONG rating retracted, whoever rated it CORRECT afterwards', async () => {
    expect((await rate(remembered, 'WRONG', BOB, '其实是证书过期')).statusCode).toBe(201);
    expect((await rate(remembered, 'CORRECT', ALICE)).statusCode).toBe(201);
    expect((await getRun(remembered)).pastIncident).toBeNull();
    const { result, sent } = await diagnose([
      lookupRound,
      draftRound({
        ...draft('x', []),
        conclusion: null,
        limitations: { checked_scope: ['知识库'], missing_info: ['日志'] },
      }),
    ]);
    expect(sent).not.toContain(MARKED);
    expect(sent).not.toMatch(/past-incident:[A-Za-z0-9]/);
    expect(sent).not.toContain(remembered);
    expect(result.report).not.toHaveProperty('seen_before');
  }, 60_000);
});

describe('a memory’s texts are masked before they are stored', () => {
  it('keeps no phone the caller typed and the model echoed into the conclusion: list route and GET /runs/{id}', async () => {
    const phone = '13800138000';
    const { runId, result } = await diagnose(
      [
        lookupRound,
        logsRound,
        draftRound(
          draft(`客户 ${phone} 反馈的订单失败是因为调用 payment-gateway 超时`, [
            finding(`14:05 之后客户 ${phone} 的订单调用 payment-gateway 返回 503 超时`, [LOGS_ID]),
          ]),
        ),
      ],
      `客户 ${phone} 说 E1001 的订单从 14:05 开始大量失败，为什么？`,
    );
    expect(result.status).toBe('PUBLISHED');
    expect((await rate(runId, 'CORRECT', ALICE)).statusCode).toBe(201);
    const shown = (await getRun(runId)).pastIncident as Record<string, unknown>;
    expect(shown).toMatchObject({ runId, rating: 'CORRECT' });
    expect(String(shown.conclusion)).not.toContain(phone);
    expect(String(shown.conclusion)).toMatch(/<phone:[^>]+>/);
    const client = localDynamoClient();
    const store = createDynamoPastIncidentStore({ client, tableName: world.tableName });
    const handler = createPastIncidentsHandler(store, {
      ...createObservability('PastIncidents'),
      policy: [{ principal: ALICE.userArn, enterprises: ['E1001'] }],
    });
    const listed = (await handler(
      httpEvent({
        method: 'GET',
        path: '/enterprises/E1001/past-incidents',
        pathParameters: { enterpriseId: 'E1001' },
        iam: ALICE,
      }),
      lambdaContext(5_000),
    )) as { statusCode: number; body: string };
    expect(listed.statusCode).toBe(200);
    expect(listed.body).toContain(runId);
    expect(listed.body).not.toContain(phone);
    const stored = await store.recent('E1001', { limit: 50, now: Date.now() });
    expect(JSON.stringify(stored)).not.toContain(phone);
    client.destroy();
  }, 60_000);
});

describe('an unreadable memory among the newest', () => {
  it('is skipped and logged by class and code, and the enterprise’s other memories still reach the lookup', async () => {
    const client = localDynamoClient();
    const documents = DynamoDBDocumentClient.from(client);
    const [readable] = await createDynamoPastIncidentStore({ client, tableName: world.tableName }).recent('E1001', {
      limit: 1,
      now: Date.now(),
    });
    if (readable === undefined) throw new Error('the enterprise has no memory yet');
    // Newer than every memory, its rating one this version never wrote: it fails its schema.
    const canary = 'canary-unreadable-memory';
    const at = new Date(Date.now()).toISOString();
    await documents.send(
      new PutCommand({
        TableName: world.tableName,
        Item: {
          pk: 'PAST#E1001',
          sk: `AT#${at}#run-unreadable`,
          entity: 'past_incident',
          schema_version: 1,
          ttl: Math.ceil(readable.expiresAt / 1_000),
          enterprise_id: 'E1001',
          run_id: 'run-unreadable',
          occurred_at: at,
          services: [],
          conclusion: canary,
          root_cause: null,
          rating: 'TRUSTED_BLINDLY',
          rated_at: at,
          expires_at: readable.expiresAt,
        },
      }),
    );
    client.destroy();
    const before = world.logs.length;
    const { result, sent } = await diagnose([
      lookupRound,
      draftRound({
        ...draft('x', []),
        conclusion: null,
        limitations: { checked_scope: ['知识库'], missing_info: ['日志'] },
      }),
    ]);
    expect(result.status).not.toBe('FAILED');
    expect(sent).toContain(`past-incident:${readable.runId}`);
    expect(sent).not.toContain(canary);
    const logged = world.logs.slice(before).filter((line) => line.includes('past incident unreadable'));
    expect(logged).toHaveLength(1);
    expect(JSON.parse(logged[0] ?? '{}')).toMatchObject({ errorClass: 'RunStoreError', code: 'CORRUPT_ITEM' });
    expect(logged.join('')).not.toContain(canary);
    expect(logged.join('')).not.toContain('TRUSTED_BLINDLY');
  }, 60_000);
});
