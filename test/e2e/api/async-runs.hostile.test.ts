/**
 * Probes of the asynchronous API through the real handlers (e2e world, tenant policy set).
 * Run ids are global (they are Step Functions execution names): another tenant reusing one learns only that it is
 * taken (409, nothing of the run) — the documented limit in README "Security model"; the rest document what held.
 */
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { createDynamoRunStore } from '@diagnosis/core/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wireText } from '../../support/deepseek-server.ts';
import { localDynamoClient } from '../../support/dynamodb.ts';
import { startE2eWorld } from '../../support/e2e-world.ts';
import { httpEvent, lambdaContext } from '../../support/lambda-events.ts';
import { noConclusionDraft } from '../../support/run-fixtures.ts';

const OPS_E1001 = { accountId: '111122223333', userArn: 'arn:aws:sts::111122223333:assumed-role/OpsE1001/alice' };
const OPS_E2002 = { accountId: '111122223333', userArn: 'arn:aws:sts::111122223333:assumed-role/OpsE2002/bob' };
const POLICY = [
  { principal: 'arn:aws:sts::111122223333:assumed-role/OpsE1001/*', enterprises: ['E1001'] },
  { principal: 'arn:aws:sts::111122223333:assumed-role/OpsE2002/*', enterprises: ['E2002'] },
];
const QUERY = '订单从 14:05 开始失败，为什么？';
let world: Awaited<ReturnType<typeof startE2eWorld>>;
const dynamo = localDynamoClient();
const logs: string[] = [];
const original = { log: console.log, info: console.info, warn: console.warn, error: console.error };
beforeAll(async () => {
  world = await startE2eWorld({ TENANT_ACCESS: JSON.stringify(POLICY) });
  const keep = (...args: unknown[]) => void logs.push(args.map(String).join(' '));
  Object.assign(console, { log: keep, info: keep, warn: keep, error: keep });
});
afterAll(async () => {
  Object.assign(console, original);
  await world?.cleanup();
  dynamo.destroy();
});

let n = 0;
const id = (p: string) => `${p}-${Date.now().toString(36)}-${(n++).toString(36)}`;
type Answer = { status: number; body: Record<string, unknown> };
const call = async (h: keyof typeof world.handlers, event: unknown): Promise<Answer> => {
  const r = (await world.handlers[h](event, lambdaContext(60_000))) as { statusCode: number; body: string };
  return { status: r.statusCode, body: JSON.parse(r.body) };
};
const start = (body: Record<string, unknown>, iam: Record<string, unknown>, qs?: Record<string, string>) =>
  call('startDiagnosis', httpEvent({ body: JSON.stringify(body), iam, ...(qs ? { queryStringParameters: qs } : {}) }));
const read = (runId: string, iam = OPS_E1001) =>
  call('getRun', httpEvent({ method: 'GET', pathParameters: { runId }, iam }));
const cancel = (runId: string, iam: Record<string, unknown>) =>
  call('cancelRun', httpEvent({ path: `/runs/${runId}/cancel`, pathParameters: { runId }, iam }));
const until = async (check: () => Promise<boolean>) => {
  for (let t = 0; t < 400 && !(await check()); t += 1) await new Promise((r) => setTimeout(r, 25));
};
function blockedRound() {
  let release: () => void = () => undefined;
  const entry = async () => {
    await new Promise<void>((resolve) => {
      release = resolve;
    });
    return wireText(JSON.stringify(noConclusionDraft()));
  };
  return { entry, release: () => release() };
}

describe('a run id another tenant already holds', () => {
  it('answers 409 RUN_ID_CONFLICT with nothing of the holder’s run, and leaves that run as it was', async () => {
    const runId = id('held');
    const session = id('holder-session');
    world.server.script.push(wireText(JSON.stringify(noConclusionDraft())));
    await start({ runId, sessionId: session, enterpriseId: 'E1001', query: QUERY }, OPS_E1001);
    await until(async () => (await read(runId)).body.status === 'PUBLISHED');
    const before = (await read(runId)).body;

    const reuse = await start({ runId, sessionId: 'mine', enterpriseId: 'E2002', query: '结算失败？' }, OPS_E2002, {
      wait: '1',
    });
    expect(reuse).toMatchObject({ status: 409, body: { error: { code: 'RUN_ID_CONFLICT' } } });
    const text = JSON.stringify(reuse.body);
    for (const secret of ['E1001', session, QUERY, 'PUBLISHED', 'conclusion']) expect(text).not.toContain(secret);
    expect((await read(runId)).body).toEqual({ ...before, timeLeftMs: null });
  });
});

describe('held: cross-tenant cancel, ?wait parsing, races, late progress', () => {
  it('refuses cancel of another tenant’s run like a missing run, and leaves it untouched', async () => {
    const runId = id('victim');
    const blocked = blockedRound();
    world.server.script.push(blocked.entry);
    await start({ runId, sessionId: 's', enterpriseId: 'E1001', query: QUERY }, OPS_E1001);
    await until(async () => (await read(runId)).body.status === 'RUNNING');
    expect(await cancel(runId, OPS_E2002)).toMatchObject({ status: 404, body: { error: { code: 'RUN_NOT_FOUND' } } });
    expect((await read(runId)).body).toMatchObject({ status: 'RUNNING', cancelRequestedAt: null });
    // waiting on it as E2002: 403 (body names E1001) or 409 (body names E2002), never its result
    expect(
      (await start({ runId, sessionId: 's', enterpriseId: 'E1001', query: QUERY }, OPS_E2002, { wait: '3' })).status,
    ).toBe(403);
    blocked.release();
    await until(async () => (await read(runId)).body.status !== 'RUNNING');
  });

  it.each(['26', '-1', '1.5', 'NaN', ' 5', '5 ', '1e1', '０', '5,5', '', '99', 'Infinity', '0x5'])(
    'refuses ?wait=%j with 400 before anything is written',
    async (wait) => {
      const runId = id('wait');
      const answer = await start({ runId, sessionId: 's', enterpriseId: 'E1001', query: QUERY }, OPS_E1001, { wait });
      expect(answer).toMatchObject({ status: 400, body: { error: { code: 'INVALID_QUERY_PARAMETER' } } });
      expect(await createDynamoRunStore({ client: dynamo, tableName: world.tableName }).getRun(runId)).toBeNull();
    },
  );

  it('runs one agent for two simultaneous starts of one runId; a racing cancel wins cleanly', async () => {
    const runId = id('race');
    const before = world.server.requests.length;
    // NOTE: the model answers only once both starts have answered, so neither can see the run already ended.
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    world.server.script.push(
      async () => {
        await released;
        return wireText(JSON.stringify(noConclusionDraft()));
      },
      wireText(JSON.stringify(noConclusionDraft())),
    );
    const body = { runId, sessionId: 's', enterpriseId: 'E1001', query: QUERY };
    const [a, b] = await Promise.all([start(body, OPS_E1001), start(body, OPS_E1001)]);
    release();
    expect([a.status, b.status]).toEqual([202, 202]);
    expect([a.body.runId, b.body.runId]).toEqual([runId, runId]);
    await until(async () => (await read(runId)).body.status === 'PUBLISHED');
    expect(world.server.requests.length - before).toBe(1);
    world.server.script.splice(0);

    const raced = id('race-cancel');
    world.server.script.push(wireText(JSON.stringify(noConclusionDraft())));
    const [s, c] = await Promise.all([
      start({ ...body, runId: raced }, OPS_E1001),
      new Promise((r) => setTimeout(r, 5)).then(() => cancel(raced, OPS_E1001)),
    ]);
    expect(s.status).toBe(202);
    expect([200, 202, 404]).toContain(c.status);
    await until(async () => !['QUEUED', 'RUNNING'].includes(String((await read(raced)).body.status)));
    expect(['CANCELLED', 'PUBLISHED']).toContain((await read(raced)).body.status);
    world.server.script.splice(0);
  });

  it('never lets a late progress write touch an ended run', async () => {
    const runId = id('late');
    world.server.script.push(wireText(JSON.stringify(noConclusionDraft())));
    await start({ runId, sessionId: 's', enterpriseId: 'E1001', query: QUERY }, OPS_E1001, { wait: '20' });
    const store = createDynamoRunStore({ client: dynamo, tableName: world.tableName });
    const ended = await store.getRun(runId);
    expect(ended?.status).toBe('SUCCEEDED');
    if (ended?.usage == null || ended.progress === null) throw new Error('the ended run has no usage or progress');
    await store.updateProgress(runId, {
      usage: { ...ended.usage, modelCalls: 99 },
      progress: { ...ended.progress, modelCalls: 99 },
      deadlineAt: Date.now(),
    });
    const { Item } = await DynamoDBDocumentClient.from(dynamo).send(
      new GetCommand({ TableName: world.tableName, Key: { pk: `RUN#${runId}`, sk: 'RUN' } }),
    );
    expect(Item?.status).toBe('SUCCEEDED');
    expect((await store.getRun(runId))?.usage?.modelCalls).toBe(1);
  });

  it('keeps the model key and body text out of every log line', () => {
    expect(logs.join('\n')).not.toContain('sk-e2e');
  });
});
