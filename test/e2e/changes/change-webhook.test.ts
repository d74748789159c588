/**
 * `POST /changes/{source}` through the real ChangeWebhook handler (issue 46): API Gateway v2 events as AWS documents
 * them, with what the real senders send — GitHub's documented `deployment_status` payload signed with
 * `X-Hub-Signature-256`, a Flux notification-controller event signed by its `generic-hmac` provider (`X-Signature`),
 * the body Argo CD's notification template writes (a bearer token: Argo CD cannot sign) — on DynamoDB Local. Every
 * refusal leaves the table as it was; a duplicate is answered 2xx and stored once, also when it reaches two
 * invocations at the same time.
 * NOTE: over 300 lines on purpose: POST /changes/{source} through the real handler for each sender kind, on one table
 * and one set of signed fixtures.
 */
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { parseChangeSettings } from '@diagnosis/core/config';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildChangeDeps } from '../../../functions/changes/change-setup.ts';
import { CHANGE_MAX_AGE_MS, createChangeWebhookHandler } from '../../../functions/changes/change-webhook-handler.ts';
import { createObservability } from '../../../functions/lambda/observability.ts';
import { MAX_WEBHOOK_BODY_BYTES } from '../../../functions/triggers/webhook-auth.ts';
import { createTestTable, localDynamoClient } from '../../support/dynamodb.ts';
import { httpEvent, lambdaContext } from '../../support/lambda-events.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
const fixture = (name: string) => readFileSync(resolve(ROOT, 'test/fixtures/changes', name), 'utf8');
const GITHUB = fixture('github-deployment-status.json');
const FLUX = fixture('flux-kustomization-applied.json');
const ARGOCD = fixture('argocd-app-deployed.json');

const SECRETS: Record<string, string> = {
  ChangeArgoE1001: 'argo-token-0123456789abcdef',
  ChangeFluxE1001: 'flux-hmac-current-0123456789,flux-hmac-previous-0123456789',
  ChangeFlagsE2002: 'flags-hmac-e2002-0123456789',
  ChangeGithubAcme: 'github-acme-webhook-secret-0123',
  ChangeGithubBeta: 'github-beta-webhook-secret-0123',
};
const SOURCES = [
  {
    source: 'webhook',
    id: 'argocd-e1001',
    enterpriseId: 'E1001',
    secret: 'ChangeArgoE1001',
    auth: 'bearer',
    services: ['order-service', 'payment-gateway'],
  },
  {
    source: 'webhook',
    id: 'flux-e1001',
    enterpriseId: 'E1001',
    secret: 'ChangeFluxE1001',
    format: 'flux',
    services: ['payment-gateway'],
  },
  { source: 'webhook', id: 'flags-e2002', enterpriseId: 'E2002', secret: 'ChangeFlagsE2002', services: ['billing'] },
  {
    source: 'github',
    repository: 'acme/order-service',
    service: 'order-service',
    enterpriseId: 'E1001',
    secret: 'ChangeGithubAcme',
    environments: ['production'],
  },
  {
    source: 'github',
    repository: 'beta/billing',
    service: 'billing',
    enterpriseId: 'E2002',
    secret: 'ChangeGithubBeta',
  },
];

const dynamo = localDynamoClient();
const documents = DynamoDBDocumentClient.from(dynamo);
let table: Awaited<ReturnType<typeof createTestTable>>;
let handler: ReturnType<typeof createChangeWebhookHandler>;
let clock = Date.parse('2026-11-30T06:05:00.000Z');
beforeAll(async () => {
  table = await createTestTable(dynamo);
  const settings = parseChangeSettings({
    DIAGNOSIS_TABLE_NAME: table.tableName,
    DYNAMODB_ENDPOINT: inject('dynamodbEndpoint'),
    CHANGE_SOURCES: JSON.stringify(SOURCES),
  });
  const deps = buildChangeDeps(
    settings,
    (name) => SECRETS[name],
    () => clock,
  );
  handler = createChangeWebhookHandler(
    deps,
    createObservability('ChangeWebhook', () => undefined),
  );
});
afterAll(async () => {
  await table.drop();
  dynamo.destroy();
});

async function items(): Promise<Record<string, unknown>[]> {
  const page = await documents.send(new ScanCommand({ TableName: table.tableName, ConsistentRead: true }));
  return (page.Items ?? []).sort((a, b) => `${a.pk}|${a.sk}`.localeCompare(`${b.pk}|${b.sk}`));
}
const changesOf = async (enterpriseId: string) =>
  (await items()).filter((item) => item.pk === `CHANGES#${enterpriseId}` && item.entity === 'change');

const hmac = (body: string, secret: string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

async function post(source: string, body: string, headers: Record<string, string>, options: { method?: string } = {}) {
  const event = httpEvent({
    method: options.method ?? 'POST',
    path: `/changes/${source}`,
    iam: false,
    body,
    headers: { 'content-type': 'application/json', ...headers },
    pathParameters: { source },
  });
  const response = (await handler(event as never, lambdaContext(10_000))) as { statusCode: number; body: string };
  return { status: response.statusCode, body: JSON.parse(response.body) as Record<string, unknown> };
}

const github = (body: string, delivery: string, secret = SECRETS.ChangeGithubAcme ?? '', event = 'deployment_status') =>
  post('github', body, {
    'x-hub-signature-256': hmac(body, secret),
    'x-github-event': event,
    'x-github-delivery': delivery,
    'user-agent': 'GitHub-Hookshot/5f2a3b1',
  });
const argo = (body: string, token = SECRETS.ChangeArgoE1001) =>
  post('argocd-e1001', body, { authorization: `Bearer ${token}` });
const flux = (body: string, secret = 'flux-hmac-current-0123456789') =>
  post('flux-e1001', body, { 'x-signature': hmac(body, secret), 'gotk-component': 'kustomize-controller' });

/** Asserts that `act` is refused with `status` and `code` and leaves every item of the table as it was. */
async function refusedWithNothingWritten(act: () => ReturnType<typeof post>, status: number, code: string) {
  const before = await items();
  expect(await act()).toEqual({ status, body: { error: { code, message: expect.any(String) } } });
  expect(await items()).toEqual(before);
}

/** Asserts that `act` is answered 2xx without a change (a duplicate, an ignored event) and writes nothing. */
async function answeredWithNothingWritten(act: () => ReturnType<typeof post>, status: number, body: unknown) {
  const before = await items();
  expect(await act()).toEqual({ status, body });
  expect(await items()).toEqual(before);
}

describe('POST /changes/github: GitHub deployment_status', () => {
  it('records GitHub’s documented payload, signed, as a deploy of the mapped service when it reached production', async () => {
    const answer = await github(GITHUB, '5d1f6a10-aee5-11f0-8f3a-1c2b3a4d5e6f');
    expect(answer).toEqual({ status: 202, body: { outcome: 'RECORDED', changeId: expect.stringMatching(/^chg_/) } });
    const [change] = await changesOf('E1001');
    expect(change).toMatchObject({
      source: 'github',
      origin: 'acme/order-service',
      event_id: '5d1f6a10-aee5-11f0-8f3a-1c2b3a4d5e6f',
      at: '2026-11-30T06:02:11.000Z',
      service: 'order-service',
      environment: 'production',
      kind: 'deploy',
      ref: 'v2.14.0@9fceb02d0ae5',
      actor: 'release-bot',
      url: 'https://github.com/acme/order-service/actions/runs/12031150488/job/33541050022',
    });
    expect(String(change?.summary)).toContain('acme/order-service 部署到 production：success');
  });

  it('answers the same delivery again 200 DUPLICATE and stores it once', async () => {
    await answeredWithNothingWritten(() => github(GITHUB, '5d1f6a10-aee5-11f0-8f3a-1c2b3a4d5e6f'), 200, {
      outcome: 'DUPLICATE',
      changeId: expect.stringMatching(/^chg_/),
    });
  });

  it('answers a ping (a new webhook’s first delivery) 200 and ignores other events and unlanded states', async () => {
    await answeredWithNothingWritten(
      () => github('{"zen":"Keep it logically awesome."}', 'ping-1', undefined, 'ping'),
      200,
      {
        outcome: 'PONG',
      },
    );
    await answeredWithNothingWritten(() => github('{"ref":"refs/heads/main"}', 'push-1', undefined, 'push'), 202, {
      outcome: 'IGNORED',
      code: 'NOT_A_CHANGE',
    });
    const inProgress = GITHUB.replace('"state": "success"', '"state": "in_progress"');
    await answeredWithNothingWritten(() => github(inProgress, 'in-progress-1'), 202, {
      outcome: 'IGNORED',
      code: 'NOT_A_CHANGE',
    });
    const staging = GITHUB.replaceAll('"production"', '"staging"');
    await answeredWithNothingWritten(() => github(staging, 'staging-1'), 202, { outcome: 'IGNORED', code: 'UNMAPPED' });
  });

  it('refuses a forged, unsigned or SHA-1 signature with nothing written', async () => {
    const body = GITHUB.replace('v2.14.0', 'v2.14.1');
    await refusedWithNothingWritten(
      () => github(body, 'forged-1', 'not-the-secret-0123456789'),
      401,
      'WEBHOOK_BAD_SIGNATURE',
    );
    await refusedWithNothingWritten(
      () => post('github', body, { 'x-github-event': 'deployment_status', 'x-github-delivery': 'unsigned-1' }),
      401,
      'WEBHOOK_UNAUTHENTICATED',
    );
    const sha1 = `sha1=${createHmac('sha1', SECRETS.ChangeGithubAcme ?? '')
      .update(body)
      .digest('hex')}`;
    await refusedWithNothingWritten(
      () =>
        post('github', body, {
          'x-hub-signature': sha1,
          'x-github-event': 'deployment_status',
          'x-github-delivery': 'sha1-1',
        }),
      401,
      'WEBHOOK_UNAUTHENTICATED',
    );
  });

  it('never records another enterprise’s repository with this one’s secret (nor its own with another’s)', async () => {
    const beta = GITHUB.replaceAll('acme/order-service', 'beta/billing').replace('v2.14.0', 'v9.9.9');
    // Signed with acme's secret: beta/billing is mapped, but not to a secret this request proved.
    await answeredWithNothingWritten(() => github(beta, 'cross-1', SECRETS.ChangeGithubAcme), 202, {
      outcome: 'IGNORED',
      code: 'UNMAPPED',
    });
    const acme = GITHUB.replace('v2.14.0', 'v2.14.2');
    await answeredWithNothingWritten(() => github(acme, 'cross-2', SECRETS.ChangeGithubBeta), 202, {
      outcome: 'IGNORED',
      code: 'UNMAPPED',
    });
    expect(await changesOf('E2002')).toEqual([]);
  });

  it('refuses a replay after the hour (its status is older than an hour) with nothing written', async () => {
    const saved = clock;
    clock = Date.parse('2026-11-30T06:02:11.000Z') + CHANGE_MAX_AGE_MS + 1_000;
    try {
      await refusedWithNothingWritten(() => github(GITHUB, 'replayed-later'), 401, 'WEBHOOK_STALE');
    } finally {
      clock = saved;
    }
  });
});

describe('POST /changes/<id>: a change webhook', () => {
  it('records the body Argo CD’s notification template writes, with its bearer token, for the mapping’s enterprise', async () => {
    const answer = await argo(ARGOCD);
    expect(answer.status).toBe(202);
    const change = (await changesOf('E1001')).find((item) => item.origin === 'argocd-e1001');
    expect(change).toMatchObject({
      source: 'webhook',
      enterprise_id: 'E1001',
      service: 'payment-gateway',
      kind: 'deploy',
      at: '2026-11-30T06:01:40.000Z',
      actor: 'zhang.min',
      url: 'https://argocd.e1001.example.com/applications/payment-gateway',
    });
    await answeredWithNothingWritten(() => argo(ARGOCD), 200, { outcome: 'DUPLICATE', changeId: answer.body.changeId });
  });

  it('records a Flux event signed by generic-hmac once per revision, with either secret of a rotation', async () => {
    expect((await flux(FLUX)).body).toMatchObject({ outcome: 'RECORDED' });
    // Flux reports the same revision again every interval: the same change.
    const again = FLUX.replace('2026-11-30T06:01:52Z', '2026-11-30T06:04:52Z').replace('configured', 'unchanged');
    await answeredWithNothingWritten(() => flux(again, 'flux-hmac-previous-0123456789'), 200, {
      outcome: 'DUPLICATE',
      changeId: expect.any(String),
    });
    const errored = FLUX.replace('"severity": "info"', '"severity": "error"').replace('3f8a2c1d', '4f8a2c1d');
    await answeredWithNothingWritten(() => flux(errored), 202, { outcome: 'IGNORED', code: 'NOT_A_CHANGE' });
  });

  it('records nothing for a service the mapping does not list (another enterprise’s), answering IGNORED', async () => {
    const body = JSON.stringify({ ...JSON.parse(ARGOCD), id: 'other-1', service: 'billing' });
    await answeredWithNothingWritten(() => argo(body), 202, { outcome: 'IGNORED', code: 'UNMAPPED' });
  });

  it('refuses another source’s secret, a wrong or missing token, and a forged signature, with nothing written', async () => {
    const body = JSON.stringify({ ...JSON.parse(ARGOCD), id: 'forged-2' });
    await refusedWithNothingWritten(() => argo(body, SECRETS.ChangeFlagsE2002), 401, 'WEBHOOK_UNAUTHENTICATED');
    await refusedWithNothingWritten(() => post('argocd-e1001', body, {}), 401, 'WEBHOOK_UNAUTHENTICATED');
    const flag = JSON.stringify({ service: 'billing', kind: 'flag', time: '2026-11-30T06:00:00Z', summary: 'x' });
    await refusedWithNothingWritten(
      () => post('flags-e2002', flag, { 'x-signature': hmac(flag, 'flags-hmac-e2002-0123456780') }),
      401,
      'WEBHOOK_BAD_SIGNATURE',
    );
    await refusedWithNothingWritten(
      () => post('flags-e2002', flag, { 'x-signature': hmac(`${flag} `, SECRETS.ChangeFlagsE2002 ?? '') }),
      401,
      'WEBHOOK_BAD_SIGNATURE',
    );
    await refusedWithNothingWritten(() => post('flags-e2002', flag, {}), 401, 'WEBHOOK_UNAUTHENTICATED');
  });

  it('cuts a 2,000-character summary to its cap (marked), keeps markup as text, and drops a link it cannot keep', async () => {
    const body = JSON.stringify({
      id: 'hostile-1',
      service: 'order-service',
      kind: 'config',
      ref: 'pool.max <!channel>',
      actor: '<@U0ADMIN> *bold*',
      time: '2026-11-30T06:03:30+08:00'.replace('06:03:30+08:00', '14:03:30+08:00'),
      url: 'javascript:alert(1)',
      summary: `<script>alert(1)</script>\n${'连接池 '.repeat(500)}`,
    });
    expect((await argo(body)).status).toBe(202);
    const change = (await changesOf('E1001')).find((item) => item.event_id === 'hostile-1');
    expect(String(change?.summary)).toHaveLength(1_000);
    expect(String(change?.summary).endsWith('…')).toBe(true);
    expect(String(change?.summary)).not.toContain('\n');
    expect(change).toMatchObject({ ref: 'pool.max <!channel>', actor: '<@U0ADMIN> *bold*', url: null });
    expect(change?.at).toBe('2026-11-30T06:03:30.000Z');
    for (const url of ['https://user:pass@argocd.example.com/x', 'https://argocd.example.com/a|b']) {
      const withLink = JSON.stringify({ ...JSON.parse(body), id: `link-${url.length}`, url });
      await argo(withLink);
      expect((await changesOf('E1001')).find((item) => item.event_id === `link-${url.length}`)?.url).toBeNull();
    }
  });

  it('refuses an unknown source, a body of another shape, a non-JSON body and an oversized one, with nothing written', async () => {
    await refusedWithNothingWritten(() => post('nobody', ARGOCD, {}), 404, 'UNKNOWN_CHANGE_SOURCE');
    await refusedWithNothingWritten(() => post('cloudtrail', ARGOCD, {}), 404, 'UNKNOWN_CHANGE_SOURCE');
    const typo = JSON.stringify({ ...JSON.parse(ARGOCD), id: 'typo-1', servce: 'x' });
    await refusedWithNothingWritten(() => argo(typo), 400, 'INVALID_CHANGE');
    const kind = JSON.stringify({ ...JSON.parse(ARGOCD), id: 'kind-1', kind: 'release' });
    await refusedWithNothingWritten(() => argo(kind), 400, 'INVALID_CHANGE');
    await refusedWithNothingWritten(() => argo('{"id":'), 400, 'BODY_NOT_JSON');
    await refusedWithNothingWritten(
      () =>
        post('argocd-e1001', ARGOCD, {
          'content-type': 'text/plain',
          authorization: `Bearer ${SECRETS.ChangeArgoE1001}`,
        }),
      415,
      'WEBHOOK_UNSUPPORTED_MEDIA_TYPE',
    );
    const big = JSON.stringify({ ...JSON.parse(ARGOCD), summary: 'x'.repeat(MAX_WEBHOOK_BODY_BYTES) });
    await refusedWithNothingWritten(() => argo(big), 413, 'WEBHOOK_BODY_TOO_LARGE');
  });

  it('refuses a change that landed over an hour ago or later than five minutes from now, with nothing written', async () => {
    const old = JSON.stringify({ ...JSON.parse(ARGOCD), id: 'old-1', time: '2026-11-30T05:04:59Z' });
    await refusedWithNothingWritten(() => argo(old), 401, 'WEBHOOK_STALE');
    const ahead = JSON.stringify({ ...JSON.parse(ARGOCD), id: 'ahead-1', time: '2026-11-30T06:10:01Z' });
    await refusedWithNothingWritten(() => argo(ahead), 401, 'WEBHOOK_STALE');
  });

  it('stores a duplicate handed to two invocations at the same time once: one RECORDED, one DUPLICATE', async () => {
    const body = JSON.stringify({ ...JSON.parse(ARGOCD), id: 'concurrent-1' });
    const answers = await Promise.all([argo(body), argo(body), argo(body)]);
    expect(answers.map((answer) => answer.body.outcome).sort()).toEqual(['DUPLICATE', 'DUPLICATE', 'RECORDED']);
    expect((await changesOf('E1001')).filter((item) => item.event_id === 'concurrent-1')).toHaveLength(1);
  });
});
