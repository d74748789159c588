/**
 * The trust boundary through the real Diagnose handler, DynamoDB Local and the real provider on a loopback server:
 * each numbered defect of issue #9 that a caller or a model can reach, reproduced as an attack.
 */
import type { DiagnosisResult } from '@diagnosis/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeepSeekResponse, wireText, wireToolCalls } from '../../support/deepseek-server.ts';
import { startE2eWorld } from '../../support/e2e-world.ts';
import { e1001ScriptedConversation, httpEvent, lambdaContext } from '../../support/lambda-events.ts';
import { envelope, LOGS_INPUT, noConclusionDraft } from '../../support/run-fixtures.ts';

let world: Awaited<ReturnType<typeof startE2eWorld>>;
const conversation = e1001ScriptedConversation();
beforeAll(async () => {
  world = await startE2eWorld();
});
afterAll(async () => {
  await world?.cleanup();
});

let counter = 0;
const newId = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}`;
const replay = (responses: DeepSeekResponse[]) => world.server.script.push(...structuredClone(responses));
const sfn = (payload: Record<string, unknown>) =>
  world.handlers.diagnose(payload, lambdaContext(60_000)) as Promise<DiagnosisResult>;
/** `POST /diagnoses?wait=25`: the run is started and the answer waits for it (the scripted model is fast). */
const post = async (body: unknown) => {
  const response = (await world.handlers.startDiagnosis(
    httpEvent({ body: JSON.stringify(body), queryStringParameters: { wait: '25' } }),
    lambdaContext(60_000),
  )) as { statusCode: number; body: string };
  return { status: response.statusCode, body: JSON.parse(response.body) };
};
/** What the model was sent in request `index` (its user message, parsed). */
const userMessage = (index: number) => {
  const messages = world.server.requests[index]?.messages as { role: string; content: string }[];
  return JSON.parse(messages.find((message) => message.role === 'user')?.content ?? '{}');
};
const runItem = async (runId: string) =>
  (await world.items()).find((item) => item.pk === `RUN#${runId}` && item.sk === 'RUN');

describe('#9.1 a session id reused by another tenant', () => {
  it('gives the other tenant no previous turn, never the first tenant’s conclusion', async () => {
    const session = newId('shared-session');
    replay(conversation.responses);
    const first = await sfn({
      runId: newId('e1001'),
      sessionId: session,
      enterpriseId: 'E1001',
      query: conversation.query,
    });
    expect(first.status).toBe('PUBLISHED');

    const before = world.server.requests.length;
    replay([wireText(JSON.stringify(noConclusionDraft()))]);
    const second = await sfn({
      runId: newId('e2002'),
      sessionId: session,
      enterpriseId: 'E2002',
      query: '接着上次的结论，现在怎么样了？',
      continueSession: true,
    });
    expect(second.status).toBe('PUBLISHED');
    const sent = JSON.stringify(world.server.requests[before]);
    expect(userMessage(before).previous_turn ?? null).toBeNull();
    expect(sent).not.toContain('连接池');
    expect(sent).not.toContain(conversation.query);
  });
});

describe('#9.2 a runId replayed with another request', () => {
  it('answers 409 RUN_ID_CONFLICT for any differing field and never returns the stored report', async () => {
    const runId = newId('replayed');
    const original = { runId, sessionId: 's-orig', enterpriseId: 'E1001', query: conversation.query };
    replay(conversation.responses);
    const stored = await post(original);
    expect(stored.status).toBe(200);
    expect(stored.body.status).toBe('PUBLISHED');
    const requestsBefore = world.server.requests.length;

    for (const variant of [
      { ...original, enterpriseId: 'E2002' },
      { ...original, sessionId: 's-other' },
      { ...original, query: `${conversation.query} ` },
      { ...original, continueSession: true },
    ]) {
      const answer = await post(variant);
      expect(answer.status).toBe(409);
      expect(answer.body).toEqual({
        error: { code: 'RUN_ID_CONFLICT', message: 'the run id is already used by a different request' },
      });
    }
    await expect(sfn({ ...original, enterpriseId: 'E2002' })).rejects.toMatchObject({
      name: 'DiagnosisRunIdConflictError',
    });
    // The identical request is still an idempotent replay with the stored answer, and no model call is made.
    const same = await post(original);
    expect(same.status).toBe(200);
    expect(same.body.report).toEqual(stored.body.report);
    expect(world.server.requests.length).toBe(requestsBefore);
  });
});

describe('#9.7 case variants of an enterprise id', () => {
  it('refuses e1001 at the boundary, over HTTP and Step Functions, and writes nothing', async () => {
    const runId = newId('lower');
    const answer = await post({ runId, sessionId: 's', enterpriseId: 'e1001', query: conversation.query });
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('INVALID_REQUEST');
    await expect(
      sfn({ runId, sessionId: 's', enterpriseId: 'e1001', query: conversation.query }),
    ).rejects.toMatchObject({
      name: 'DiagnosisInputError',
    });
    expect(await runItem(runId)).toBeUndefined();
  });
});

describe('#9.9 model-chosen tool call ids', () => {
  const logsCall = (id: string) => ({ id, name: 'query_logs', arguments: envelope(LOGS_INPUT) });

  it('refuses a 9,000-character id with a stable code and an observation within 8 KiB', async () => {
    const runId = newId('long-id');
    const longId = `call_${'x'.repeat(9_000)}`;
    const before = world.server.requests.length;
    replay([wireToolCalls([logsCall(longId)]), wireText(JSON.stringify(noConclusionDraft()))]);
    const result = await sfn({ runId, sessionId: 's', enterpriseId: 'E1001', query: conversation.query });
    expect(['PUBLISHED', 'FALLBACK']).toContain(result.status);
    const messages = world.server.requests[before + 1]?.messages as { role: string; content: string }[];
    const observation = messages.find((message) => message.role === 'tool')?.content ?? '';
    expect(Buffer.byteLength(observation)).toBeLessThanOrEqual(8 * 1024);
    expect(JSON.parse(observation)).toMatchObject({ evidence_status: 'REJECTED', code: 'INVALID_TOOL_CALL_ID' });
    expect(result.usage.toolCalls).toBe(0);
  });

  it('closes a run whose model chose 150 KB ids, with every item far under 400 KB', async () => {
    const runId = newId('huge-id');
    const ids = [1, 2, 3].map((index) => `c${index}${'y'.repeat(150_000)}`);
    replay([wireToolCalls(ids.map(logsCall)), wireText(JSON.stringify(noConclusionDraft()))]);
    const result = await sfn({ runId, sessionId: 's', enterpriseId: 'E1001', query: conversation.query });
    expect(['PUBLISHED', 'FALLBACK']).toContain(result.status);
    expect((await runItem(runId))?.status).not.toBe('RUNNING');
    const items = (await world.items()).filter((item) => String(item.pk).endsWith(runId));
    for (const item of items) expect(Buffer.byteLength(JSON.stringify(item))).toBeLessThan(200 * 1024);
  });

  it('keeps an id shaped like the store’s own reuse key from colliding with it', async () => {
    const runId = newId('collide');
    replay([
      wireToolCalls([logsCall('c1')]),
      wireToolCalls([logsCall('c1#REUSED#001'), logsCall('c1')]),
      wireText(JSON.stringify(noConclusionDraft())),
    ]);
    const result = await sfn({ runId, sessionId: 's', enterpriseId: 'E1001', query: conversation.query });
    expect(result.report).not.toMatchObject({ error_code: 'AUDIT_FAILED' });
    expect((await runItem(runId))?.error_code ?? null).not.toBe('AUDIT_FAILED');
    const tools = (await world.items()).filter(
      (item) => item.pk === `RUN#${runId}` && item.entity === 'tool_invocation',
    );
    const keys = tools
      .map((item): [string, unknown] => [String(item.sk), item.code])
      .sort(([a], [b]) => (a < b ? -1 : 1));
    expect(keys).toEqual([
      ['TOOL#c1', null],
      ['TOOL#c1#REUSED#001', 'DUPLICATE_TOOL_CALL_ID'],
      ['TOOLID#INVALID#0001', 'INVALID_TOOL_CALL_ID'],
    ]);
  });
});

describe('#9.10 malformed HTTP events', () => {
  const send = async (event: Record<string, unknown>) => {
    const response = (await world.handlers.startDiagnosis(event, lambdaContext(60_000))) as {
      statusCode: number;
      body: string;
    };
    return { status: response.statusCode, code: JSON.parse(response.body).error?.code };
  };
  const valid = { runId: 'malformed-run', sessionId: 's', enterpriseId: 'E1001', query: conversation.query };

  it.each([
    ['an object body', { body: valid }],
    ['a number body', { body: 42 }],
    ['an array body', { body: [JSON.stringify(valid)] }],
    ['isBase64Encoded as a string', { isBase64Encoded: 'false' }],
    ['headers as a string', { headers: 'content-type: application/json' }],
    ['a header of the wrong type', { headers: { 'content-type': ['application/json'] } }],
    ['a method of the wrong type', { requestContext: { ...httpEvent().requestContext, http: { method: 7 } } }],
  ])('answers %s with 400 MALFORMED_EVENT and writes nothing', async (_label, override) => {
    const event = { ...httpEvent({ body: JSON.stringify(valid) }), ...override };
    expect(await send(event)).toEqual({ status: 400, code: 'MALFORMED_EVENT' });
    expect(await runItem('malformed-run')).toBeUndefined();
  });

  it.each([
    ['an IAM context that is not an object', { authorizer: { iam: 'arn:aws:iam::1:root' } }],
    ['an empty IAM context', { authorizer: { iam: {} } }],
    ['an authorizer that is a string', { authorizer: 'iam' }],
  ])('answers %s with 403 FORBIDDEN', async (_label, context) => {
    const event = httpEvent({ body: JSON.stringify(valid) });
    const hostile = { ...event, requestContext: { ...event.requestContext, ...context } };
    expect(await send(hostile)).toEqual({ status: 403, code: 'FORBIDDEN' });
  });
});
