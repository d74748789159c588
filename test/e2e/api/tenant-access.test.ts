/**
 * #9.11 and #9.12: the tenant access policy on every HTTP route, and reasoning on its own route and key, through the
 * real handlers with the policy set at cold start as a deployment sets it.
 */
import type { DiagnosisResult } from '@diagnosis/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startE2eWorld } from '../../support/e2e-world.ts';
import { e1001ScriptedConversation, httpEvent, lambdaContext } from '../../support/lambda-events.ts';

const OPS_E1001 = {
  accountId: '111122223333',
  userArn: 'arn:aws:sts::111122223333:assumed-role/OpsE1001/alice',
};
const OPS_E2002 = {
  accountId: '111122223333',
  userArn: 'arn:aws:sts::111122223333:assumed-role/OpsE2002/bob',
};
const STRANGER = { accountId: '444455556666', userArn: 'arn:aws:sts::444455556666:assumed-role/OpsE1001/eve' };
const POLICY = [
  { principal: 'arn:aws:sts::111122223333:assumed-role/OpsE1001/*', enterprises: ['E1001'] },
  { principal: 'arn:aws:sts::111122223333:assumed-role/OpsE2002/*', enterprises: ['E2002'] },
];

let world: Awaited<ReturnType<typeof startE2eWorld>>;
const conversation = e1001ScriptedConversation();
const runE1001 = `tenant-e1001-${Date.now().toString(36)}`;
let published: DiagnosisResult;

beforeAll(async () => {
  world = await startE2eWorld({ TENANT_ACCESS: JSON.stringify(POLICY) });
  world.server.script.push(...structuredClone(conversation.responses));
  published = (await world.handlers.diagnose(
    { runId: runE1001, sessionId: 's', enterpriseId: 'E1001', query: conversation.query },
    lambdaContext(60_000),
  )) as DiagnosisResult;
});
afterAll(async () => {
  await world?.cleanup();
});

type Route = 'getRun' | 'getRunAudit' | 'getRunReasoning';
const read = async (route: Route, runId: string, iam: Record<string, unknown>) => {
  const response = (await world.handlers[route](
    httpEvent({ method: 'GET', pathParameters: { runId }, iam }),
    lambdaContext(5_000),
  )) as { statusCode: number; body: string };
  return { status: response.statusCode, body: response.body };
};
const start = async (body: Record<string, unknown>, iam: Record<string, unknown>) => {
  const response = (await world.handlers.startDiagnosis(
    httpEvent({ body: JSON.stringify(body), iam }),
    lambdaContext(60_000),
  )) as { statusCode: number; body: string };
  return { status: response.statusCode, body: JSON.parse(response.body) };
};

describe('tenant authorization on every HTTP route', () => {
  it('refuses to start a diagnosis for an enterprise the caller may not use, and writes nothing', async () => {
    const runId = `forbidden-${Date.now().toString(36)}`;
    const requests = world.server.requests.length;
    for (const iam of [OPS_E2002, STRANGER]) {
      const answer = await start({ runId, sessionId: 's', enterpriseId: 'E1001', query: conversation.query }, iam);
      expect(answer).toEqual({
        status: 403,
        body: { error: { code: 'FORBIDDEN_TENANT', message: 'this caller may not diagnose this enterprise' } },
      });
    }
    expect(world.server.requests.length).toBe(requests);
    expect((await world.items()).some((item) => String(item.pk).includes(runId))).toBe(false);
  });

  it.each(['getRun', 'getRunAudit', 'getRunReasoning'] as const)(
    '%s shows a run to its tenant and answers anyone else exactly as for a missing run',
    async (route) => {
      expect(published.status).toBe('PUBLISHED');
      expect((await read(route, runE1001, OPS_E1001)).status).toBe(200);
      const missing = await read(route, 'no-such-run', OPS_E1001);
      expect(missing.status).toBe(404);
      for (const iam of [OPS_E2002, STRANGER]) {
        const foreign = await read(route, runE1001, iam);
        expect(foreign).toEqual(missing);
      }
    },
  );
});

describe('reasoning on its own route and key', () => {
  it('keeps reasoning in its own partition, out of the audit route, and on the reasoning route only', async () => {
    const items = await world.items();
    const reasoningItems = items.filter((item) => item.entity === 'agent_reasoning_audit');
    expect(reasoningItems.length).toBe(5);
    expect(reasoningItems.every((item) => item.pk === `REASONING#${runE1001}`)).toBe(true);
    expect(items.filter((item) => item.pk === `RUN#${runE1001}`).some((item) => 'thought' in item)).toBe(false);

    const firstReasoning = conversation.responses[0]?.choices[0]?.message.reasoning_content ?? '';
    expect(firstReasoning.length).toBeGreaterThan(0);
    const audit = await read('getRunAudit', runE1001, OPS_E1001);
    expect(audit.body).not.toContain(firstReasoning.slice(0, 20));
    const reasoning = await read('getRunReasoning', runE1001, OPS_E1001);
    expect(JSON.parse(reasoning.body).records[0].reasoningContent).toBe(firstReasoning);
  });
});
