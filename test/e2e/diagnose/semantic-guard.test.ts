import type { DiagnosisResult, FallbackReport, PublishedReport } from '@diagnosis/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wireText } from '../../support/deepseek-server.ts';
import { startE2eWorld } from '../../support/e2e-world.ts';
import { e1001ScriptedConversation, lambdaContext } from '../../support/lambda-events.ts';

let world: Awaited<ReturnType<typeof startE2eWorld>>;

beforeAll(async () => {
  // The deployed default: the judge decides what is published.
  world = await startE2eWorld({ SEMANTIC_GUARD: 'enforce' });
});
afterAll(async () => {
  await world?.cleanup();
});

let counter = 0;
const runId = () => `sg-${Date.now().toString(36)}-${(counter++).toString(36)}`;
const conversation = e1001ScriptedConversation();
const sfn = (payload: Record<string, unknown>) =>
  world.handlers.diagnose(payload, lambdaContext(60_000)) as Promise<DiagnosisResult>;
const request = (id: string) => ({ runId: id, sessionId: 'ops-sg', enterpriseId: 'E1001', query: conversation.query });

describe('the SemanticGuard through the Diagnose Lambda (enforce)', () => {
  it('asks the judge once after the agent, removes the claim it cannot confirm, and audits its call as JUDGE', async () => {
    const id = runId();
    world.server.script.push(...structuredClone(conversation.responses));
    world.server.judgeScript.push(...structuredClone(conversation.judgeResponses));
    const agentBefore = world.server.requests.length;
    const judgeBefore = world.server.judgeRequests.length;

    const result = await sfn(request(id));

    expect(result.status).toBe('PUBLISHED');
    expect(world.server.requests.length - agentBefore).toBe(5);
    expect(world.server.judgeRequests.length - judgeBefore).toBe(1);
    const judgeRequest = world.server.judgeRequests.at(-1) as Record<string, unknown>;
    expect(judgeRequest).not.toHaveProperty('tools');
    expect(JSON.stringify(judgeRequest)).not.toContain('reasoning_content');
    const report = result.report as PublishedReport;
    expect(report.draft.analysis.map((item) => item.type)).toEqual(['FINDING', 'FINDING', 'FINDING']);
    expect(report.draft.limitations.missing_info[0]).toContain('语义校验（证据不足以判断）已移除');
    expect(report.semantic_guard).toMatchObject({ mode: 'enforce', outcome: 'JUDGED', removed: [3] });
    expect(result.usage.modelCalls).toBe(6);

    const items = (await world.items()).filter((item) => item.pk === `RUN#${id}` || item.pk === `REASONING#${id}`);
    expect(items.find((item) => item.entity === 'agent_step' && item.sk === 'STEP#0006')).toMatchObject({
      role: 'JUDGE',
      input_tokens: 4_310,
    });
    expect(items.find((item) => item.entity === 'agent_step' && item.sk === 'STEP#0005')).not.toHaveProperty('role');
    expect(items.find((item) => item.pk === `REASONING#${id}` && item.sk === 'STEP#0006')).toMatchObject({
      role: 'JUDGE',
      assistant_text: expect.stringContaining('"analysis": [["SUPPORTED"'),
    });
    expect(items.find((item) => item.entity === 'run')).toMatchObject({
      status: 'SUCCEEDED',
      usage: expect.objectContaining({ modelCalls: 6 }),
    });
  });

  it('fails closed when the judge answers with prose instead of verdicts', async () => {
    const id = runId();
    world.server.script.push(...structuredClone(conversation.responses));
    world.server.judgeScript.push(wireText('看起来都没问题。'));

    const result = await sfn(request(id));

    expect(result.status).toBe('FALLBACK');
    expect((result.report as FallbackReport).semantic_guard).toMatchObject({
      outcome: 'FAILED',
      failure: 'INVALID_OUTPUT',
    });
    const run = (await world.items()).find((item) => item.pk === `RUN#${id}` && item.entity === 'run');
    expect(run).toMatchObject({ status: 'FALLBACK', error_code: 'SEMANTIC_GUARD_FAILED', published_result: null });
  });

  it('says how the judge’s request failed and which key to check when its endpoint answers 401', async () => {
    const id = runId();
    world.server.script.push(...structuredClone(conversation.responses));
    world.server.judgeScript.push({ status: 401, body: { error: { message: 'Authentication Fails (SECRET-BODY)' } } });

    const result = await sfn(request(id));

    expect(result.status).toBe('FALLBACK');
    const guard = (result.report as FallbackReport).semantic_guard;
    expect(guard).toMatchObject({
      outcome: 'FAILED',
      failure: 'MODEL_FAILED',
      model_failure: { kind: 'HTTP', http_status: 401, error_class: 'APICallError', network_code: null },
    });
    // What the endpoint sent never reaches the report.
    expect(JSON.stringify(result)).not.toContain('SECRET-BODY');
    const { renderReport } = await import('../../../packages/cli/src/render/render-report.ts');
    const text = renderReport(result, { modelBaseUrl: 'https://judge.example/v1' });
    expect(text).toContain('  judge endpoint: HTTP 401 · APICallError');
    expect(text).toContain(
      '检查 Check: the judge’s endpoint judge.example answered 401 Unauthorized: check SEMANTIC_GUARD_MODEL_API_KEY (default: the agent’s DIAGNOSIS_MODEL_API_KEY)',
    );
  });
});
