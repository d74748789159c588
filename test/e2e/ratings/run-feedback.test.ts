/**
 * `POST /runs/{runId}/feedback` through the real handlers (the RunFeedback function with its cold start, DynamoDB
 * Local, the tenant policy as a deployment sets it): authorization as the read routes (a foreign run is a 404),
 * bounded bodies with stable codes, idempotency per IAM caller, re-rating history shown by `GET /runs/{id}`, and one
 * `RunFeedback` metric per new rating by enterprise and verdict.
 * NOTE: over 300 lines on purpose: POST /runs/{runId}/feedback through the real handler on one world: authorization,
 * bodies, idempotency and masking of one route.
 */
import {
  cancelled,
  createMaskingSession,
  DEVELOPMENT_MASKING_SECRET,
  type DiagnosisResult,
  emptyRunUsage,
  sealNewPseudonyms,
} from '@diagnosis/core';
import {
  createDynamoRunStore,
  createMemoryFeedbackStore,
  createMemoryPastIncidentStore,
  createMemoryRunStore,
  createMemoryStores,
} from '@diagnosis/core/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFeedbackHandler } from '../../../functions/api/feedback-handler.ts';
import { createObservability } from '../../../functions/lambda/observability.ts';
import { createRating } from '../../../functions/ratings/rating.ts';
import { localDynamoClient } from '../../support/dynamodb.ts';
import { startE2eWorld } from '../../support/e2e-world.ts';
import { e1001ScriptedConversation, httpEvent, lambdaContext } from '../../support/lambda-events.ts';

const ALICE = { accountId: '111122223333', userArn: 'arn:aws:sts::111122223333:assumed-role/OpsE1001/alice' };
const CAROL = { accountId: '111122223333', userArn: 'arn:aws:sts::111122223333:assumed-role/OpsE1001/carol' };
const BOB_E2002 = { accountId: '111122223333', userArn: 'arn:aws:sts::111122223333:assumed-role/OpsE2002/bob' };
const POLICY = [
  { principal: 'arn:aws:sts::111122223333:assumed-role/OpsE1001/*', enterprises: ['E1001'] },
  { principal: 'arn:aws:sts::111122223333:assumed-role/OpsE2002/*', enterprises: ['E2002'] },
];

let world: Awaited<ReturnType<typeof startE2eWorld>>;
const conversation = e1001ScriptedConversation();
const runId = `feedback-${Date.now().toString(36)}`;

beforeAll(async () => {
  world = await startE2eWorld({ TENANT_ACCESS: JSON.stringify(POLICY) });
  world.server.script.push(...structuredClone(conversation.responses));
  const result = (await world.handlers.diagnose(
    { runId, sessionId: 's', enterpriseId: 'E1001', query: conversation.query },
    lambdaContext(60_000),
  )) as DiagnosisResult;
  expect(result.status).toBe('PUBLISHED');
});
afterAll(async () => {
  await world?.cleanup();
});

const post = async (
  body: unknown,
  options: { iam?: Record<string, unknown> | false; run?: string; headers?: Record<string, string> } = {},
) => {
  const response = (await world.handlers.runFeedback(
    httpEvent({
      method: 'POST',
      path: `/runs/${options.run ?? runId}/feedback`,
      pathParameters: { runId: options.run ?? runId },
      body: typeof body === 'string' ? body : JSON.stringify(body),
      iam: options.iam ?? ALICE,
      ...(options.headers === undefined ? {} : { headers: options.headers }),
    }),
    lambdaContext(5_000),
  )) as { statusCode: number; body: string };
  return { status: response.statusCode, body: JSON.parse(response.body) };
};
const feedbackItems = async () => (await world.items()).filter((item) => String(item.pk).startsWith('FEEDBACK#'));
const feedbackMetrics = (from: number) =>
  world.logs
    .slice(from)
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((entry) => '_aws' in entry && 'RunFeedback' in entry);

describe('POST /runs/{runId}/feedback', () => {
  it('records a verdict for the IAM caller, once: the same rating again is 200 and writes nothing', async () => {
    const before = world.logs.length;
    const body = { verdict: 'WRONG', rootCause: 'payment-gateway 证书过期', note: '见变更单 CHG-1' };
    const first = await post(body);
    expect(first).toMatchObject({
      status: 201,
      body: { runId, created: true, feedback: { verdict: 'WRONG', caller: ALICE.userArn, sequence: 1, current: true } },
    });
    const again = await post(body);
    expect(again).toMatchObject({ status: 200, body: { created: false, feedback: { sequence: 1 } } });
    expect(await feedbackItems()).toHaveLength(1);
    const metrics = feedbackMetrics(before);
    expect(metrics).toHaveLength(1);
    expect(metrics[0]).toMatchObject({ enterprise: 'E1001', verdict: 'WRONG', RunFeedback: 1 });
    expect(JSON.stringify(metrics)).not.toContain('证书');
  });

  it('keeps the history of a re-rating and shows every entry, each caller’s newest current, on GET /runs/{id}', async () => {
    expect((await post({ verdict: 'CORRECT' })).status).toBe(201);
    expect((await post({ verdict: 'PARTIALLY_CORRECT' }, { iam: CAROL })).status).toBe(201);
    const response = (await world.handlers.getRun(
      httpEvent({ method: 'GET', pathParameters: { runId }, iam: ALICE }),
      lambdaContext(5_000),
    )) as { statusCode: number; body: string };
    const run = JSON.parse(response.body);
    expect(run.feedback.map((item: Record<string, unknown>) => [item.caller, item.verdict, item.current])).toEqual(
      expect.arrayContaining([
        [ALICE.userArn, 'WRONG', false],
        [ALICE.userArn, 'CORRECT', true],
        [CAROL.userArn, 'PARTIALLY_CORRECT', true],
      ]),
    );
    expect(run.feedback).toHaveLength(3);
    expect(run.processScorecard).toMatchObject({ version: 1, rounds: 5, toolCalls: { executed: 4 } });
  });

  it('answers a run of another tenant exactly like a missing one, and writes nothing', async () => {
    const before = await feedbackItems();
    const foreign = await post({ verdict: 'WRONG' }, { iam: BOB_E2002 });
    const missing = await post({ verdict: 'WRONG' }, { iam: BOB_E2002, run: 'no-such-run' });
    expect(foreign).toEqual(missing);
    expect(foreign).toMatchObject({ status: 404, body: { error: { code: 'RUN_NOT_FOUND' } } });
    expect(await feedbackItems()).toEqual(before);
  });

  it.each([
    ['no IAM caller', { verdict: 'WRONG' }, { iam: false as const }, 403, 'FORBIDDEN'],
    ['a caller named in the body', { verdict: 'WRONG', caller: 'arn:aws:sts::1:x' }, {}, 400, 'INVALID_FEEDBACK'],
    ['an unknown verdict', { verdict: 'MAYBE' }, {}, 400, 'INVALID_FEEDBACK'],
    [
      'a root cause over 1,000 characters',
      { verdict: 'WRONG', rootCause: 'x'.repeat(1_001) },
      {},
      400,
      'INVALID_FEEDBACK',
    ],
    ['a note over 2,000 characters', { verdict: 'WRONG', note: '注'.repeat(2_001) }, {}, 400, 'INVALID_FEEDBACK'],
    ['a blank root cause', { verdict: 'WRONG', rootCause: '  \n' }, {}, 400, 'INVALID_FEEDBACK'],
    ['a terminal escape', { verdict: 'WRONG', note: 'ok\u001b]0;owned\u0007' }, {}, 400, 'INVALID_FEEDBACK'],
    ['a bidirectional override', { verdict: 'WRONG', note: 'abc\u202edcba' }, {}, 400, 'INVALID_FEEDBACK'],
    ['a lone surrogate', '{"verdict":"WRONG","note":"\\ud800"}', {}, 400, 'INVALID_FEEDBACK'],
    ['a body over 8 KiB', { verdict: 'WRONG', note: 'x'.repeat(9_000) }, {}, 413, 'BODY_TOO_LARGE'],
    ['a body that is not JSON', '{verdict', {}, 400, 'BODY_NOT_JSON'],
    [
      'not JSON content',
      { verdict: 'WRONG' },
      { headers: { 'content-type': 'text/plain' } },
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    ],
    ['a run id that is not one', { verdict: 'WRONG' }, { run: 'RUN#x' }, 400, 'INVALID_RUN_ID'],
  ])('refuses %s with a stable code and writes nothing', async (_label, body, options, status, code) => {
    const before = await feedbackItems();
    const answer = await post(body, options);
    expect(answer).toMatchObject({ status, body: { error: { code } } });
    expect(JSON.stringify(answer.body)).not.toMatch(/owned|x{50}/);
    expect(await feedbackItems()).toEqual(before);
  });

  it('does not let a caller without a user or role ARN see the run (the policy matches ARNs): 404', async () => {
    const answer = await post({ verdict: 'WRONG' }, { iam: { accountId: '111122223333' } });
    expect(answer).toMatchObject({ status: 404, body: { error: { code: 'RUN_NOT_FOUND' } } });
  });

  it('refuses a rating of a run that has not ended (409 RUN_NOT_ENDED), and writes nothing', async () => {
    const client = localDynamoClient();
    const store = createDynamoRunStore({ client, tableName: world.tableName });
    const queuedRunId = `queued-${Date.now().toString(36)}`;
    await store.queueRun({
      runId: queuedRunId,
      sessionId: 's',
      enterpriseId: 'E1001',
      query: 'q',
      continueSession: false,
    });
    client.destroy();
    const before = await feedbackItems();
    const answer = await post({ verdict: 'WRONG' }, { run: queuedRunId });
    expect(answer).toMatchObject({ status: 409, body: { error: { code: 'RUN_NOT_ENDED' } } });
    expect(await feedbackItems()).toEqual(before);
  });
});

describe('createFeedbackHandler without a tenant policy', () => {
  it('refuses an IAM caller without a user or role ARN (403 CALLER_UNKNOWN), and writes nothing', async () => {
    const store = createMemoryRunStore();
    await store.startRun({ runId: 'r1', sessionId: 's', enterpriseId: 'E1001', query: 'q', continueSession: false });
    await store.completeRun('r1', cancelled(emptyRunUsage()).outcome);
    const feedback = createMemoryFeedbackStore();
    const rate = createRating({
      feedback,
      masking: { secret: DEVELOPMENT_MASKING_SECRET, mode: 'identifiers', pseudonyms: store },
      memory: { incidents: createMemoryPastIncidentStore(), retentionDays: 730 },
    });
    const handler = createFeedbackHandler(
      { store, rate },
      { ...createObservability('RunFeedback', () => undefined), policy: null },
    );
    const response = (await handler(
      httpEvent({ pathParameters: { runId: 'r1' }, body: '{"verdict":"WRONG"}', iam: { accountId: '111122223333' } }),
      lambdaContext(5_000),
    )) as { statusCode: number; body: string };
    expect(response.statusCode).toBe(403);
    expect(JSON.parse(response.body)).toMatchObject({ error: { code: 'CALLER_UNKNOWN' } });
    expect(feedback.items.size).toBe(0);
  });
});

describe('feedback masked like everything else of its run (issue 24)', () => {
  const DAVE = { accountId: '111122223333', userArn: 'arn:aws:sts::111122223333:assumed-role/OpsE1001/dave' };
  const reveal = async (iam: Record<string, unknown>) => {
    const response = (await world.handlers.getRunReveal(
      httpEvent({ method: 'GET', path: `/runs/${runId}/reveal`, pathParameters: { runId }, iam }),
      lambdaContext(5_000),
    )) as { statusCode: number; body: string };
    return { status: response.statusCode, body: JSON.parse(response.body) };
  };

  it('stores the run’s own pseudonyms and redacted secrets, never a canary, and reveals the values to the enterprise', async () => {
    // A phone number the run's evidence held, as its observations showed it to the model.
    const observed = JSON.stringify(
      (await world.items()).filter((item) => item.pk === `RUN#${runId}` && item.entity === 'tool_invocation'),
    );
    const token = observed.match(/<phone:[a-z2-7]{5,13}>/)?.[0];
    if (token === undefined) throw new Error('the run showed no phone number');
    const before = await reveal(DAVE);
    const phone = (before.body.records as { token: string; value: string }[]).find((r) => r.token === token)?.value;
    if (phone === undefined) throw new Error('the reveal does not know the pseudonym');
    const tag = Math.random().toString(36).slice(2, 10);
    const email = `canary.${tag}@customer-mail.cn`;
    const secret = `Canary${tag}Secret`;

    const answer = await post(
      {
        verdict: 'WRONG',
        rootCause: `客户 ${phone} 的订单失败，联系 ${email}`,
        note: `数据库 password=${secret} 被改`,
      },
      { iam: DAVE },
    );

    expect(answer.status).toBe(201);
    // Stored: no canary in any item of the table (the map's new entry is sealed).
    const everything = JSON.stringify(await world.items());
    for (const canary of [phone, email, secret]) expect(everything).not.toContain(canary);
    // The answer and GET /runs/{id} show the masked text: the run's own pseudonym for the phone it saw.
    expect(answer.body.feedback.rootCause).toContain(token);
    expect(answer.body.feedback.rootCause).toMatch(/联系 <email:[a-z2-7]{5,13}>$/);
    expect(answer.body.feedback.note).toBe('数据库 password=[REDACTED:password] 被改');
    const shown = (await world.handlers.getRun(
      httpEvent({ method: 'GET', pathParameters: { runId }, iam: DAVE }),
      lambdaContext(5_000),
    )) as { body: string };
    const mine = (JSON.parse(shown.body).feedback as { caller: string }[]).find(
      (entry) => entry.caller === DAVE.userArn,
    );
    expect(mine).toMatchObject({ rootCause: answer.body.feedback.rootCause, note: answer.body.feedback.note });
    // The reveal gives the new value to whoever may see the run's customer data; the phone keeps its one entry.
    const after = await reveal(DAVE);
    const records = after.body.records as { token: string; kind: string; value: string }[];
    const emailToken = String(answer.body.feedback.rootCause).match(/<email:[a-z2-7]{5,13}>/)?.[0];
    expect(records).toContainEqual({ token: emailToken, kind: 'email', value: email });
    expect(records.filter((record) => record.value === phone)).toHaveLength(1);
    expect(JSON.stringify(records)).not.toContain(secret);
    expect((await reveal(BOB_E2002)).status).toBe(404);
    // The same rating again is that rating: nothing new in the map either.
    expect(
      await post(
        {
          verdict: 'WRONG',
          rootCause: `客户 ${phone} 的订单失败，联系 ${email}`,
          note: `数据库 password=${secret} 被改`,
        },
        { iam: DAVE },
      ),
    ).toMatchObject({ status: 200, body: { created: false } });
    expect((await reveal(DAVE)).body.records).toHaveLength(records.length);
  });
});

describe('feedback with a value hidden in a marker look-alike or an encoding (issue 32, items 7 and 8)', () => {
  const ERIN = { accountId: '111122223333', userArn: 'arn:aws:sts::111122223333:assumed-role/OpsE1001/erin' };
  const fullWidth = (text: string) =>
    text.replace(/[0-9A-Za-z@.]/g, (character) => String.fromCharCode(character.charCodeAt(0) + 0xfee0));

  it('stores none of them in clear, in the note as in the root cause', async () => {
    const tag = Math.random().toString(36).slice(2, 8);
    const phone = `139${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;
    const email = `lookalike.${tag}@customer-mail.cn`;
    const card = '4111111111111111';
    const answer = await post(
      {
        verdict: 'WRONG',
        rootCause: `客户 ${fullWidth(phone)} 的卡 [REDACTED:${card}] 被拒`,
        note: `note=[MASKED:${phone}] contact <x_${phone}:aaaaa> mail ${email.replace('@', '%40')}`,
      },
      { iam: ERIN },
    );
    expect(answer.status).toBe(201);
    const everything = JSON.stringify(await world.items());
    const forms = [phone, fullWidth(phone), card, email, email.replace('@', '%40'), email.split('@')[0] ?? email];
    for (const form of forms) expect(everything).not.toContain(form);
    expect(answer.body.feedback.note).toMatch(
      /^note=\[MASKED:<phone:[a-z2-7]{5,13}>\] contact <x_<phone:[a-z2-7]{5,13}>:aaaaa> mail <email:[a-z2-7]{5,13}>$/,
    );
    expect(answer.body.feedback.rootCause).toMatch(
      /^客户 <phone:[a-z2-7]{5,13}> 的卡 \[REDACTED:<bank_card:[a-z2-7]{5,13}>\] 被拒$/,
    );
  });
});

describe('createFeedbackHandler when the run’s masking cannot be had', () => {
  const ended = async () => {
    const store = createMemoryStores();
    await store.startRun({ runId: 'r1', sessionId: 's', enterpriseId: 'E1001', query: 'q', continueSession: false });
    await store.completeRun('r1', { ...cancelled(emptyRunUsage()).outcome, masking: 'identifiers' });
    return store;
  };
  const rate = async (store: Awaited<ReturnType<typeof ended>>, secret: string | null) => {
    const feedback = createMemoryFeedbackStore();
    const rating = createRating({
      feedback,
      masking: { secret, mode: 'identifiers', pseudonyms: store },
      memory: { incidents: createMemoryPastIncidentStore(), retentionDays: 730 },
    });
    const handler = createFeedbackHandler(
      { store, rate: rating },
      { ...createObservability('RunFeedback', () => undefined), policy: null },
    );
    const response = (await handler(
      httpEvent({
        pathParameters: { runId: 'r1' },
        body: JSON.stringify({ verdict: 'WRONG', rootCause: '客户 13912345678 下单失败' }),
        iam: ALICE,
      }),
      lambdaContext(5_000),
    )) as { statusCode: number; body: string };
    return { status: response.statusCode, body: JSON.parse(response.body), stored: feedback.items.size };
  };

  it('refuses the rating (503 MASKING_UNAVAILABLE) and stores nothing when there is no masking secret', async () => {
    expect(await rate(await ended(), null)).toMatchObject({
      status: 503,
      body: { error: { code: 'MASKING_UNAVAILABLE' } },
      stored: 0,
    });
  });

  it('refuses the rating when the run’s pseudonym map does not open with the secret (it was sealed with another)', async () => {
    const store = await ended();
    const other = createMaskingSession({ mode: 'identifiers', secret: DEVELOPMENT_MASKING_SECRET }, 'r1');
    other.maskText('客户 13800000000');
    for (const batch of sealNewPseudonyms(other, { runId: 'r1', sessionId: 's' }, () => 1)) {
      await store.onPseudonyms?.(batch);
    }
    await store.flush();
    const answer = await rate(store, 'another-deployment-secret-of-at-least-32-characters');
    expect(answer).toMatchObject({ status: 503, body: { error: { code: 'MASKING_UNAVAILABLE' } }, stored: 0 });
    expect(JSON.stringify(answer.body)).not.toContain('13912345678');
  });
});
