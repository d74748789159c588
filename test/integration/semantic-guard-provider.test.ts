import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { executeDiagnosisRun, type PublishedReport } from '@diagnosis/core';
import { createMemoryStores } from '@diagnosis/core/store';
import { afterEach, describe, expect, it } from 'vitest';
import { startDeepSeekServer, wireText, wireToolCalls } from '../support/deepseek-server.ts';
import { createFakeEvidence } from '../support/fake-evidence.ts';
import { judgeAnswer } from '../support/judge-answer.ts';
import { draftAnswer, envelope, LOGS_INPUT, supportedDraft } from '../support/run-fixtures.ts';

const CALL_ID = 'call_00_lCIkdHRa7AKmCG3TlxXz1061';
let closeServer: (() => Promise<void>) | undefined;

afterEach(async () => {
  await closeServer?.();
  closeServer = undefined;
});

describe('the SemanticGuard over the real openai-compatible provider', () => {
  it('asks a second model id on the same endpoint, without tools or the agent’s conversation, and audits it', async () => {
    const verdicts = {
      analysis: [{ index: 0, verdict: 'SUPPORTED', reason: `${CALL_ID} 的日志显示连接池耗尽` }],
      conclusion: { verdict: 'SUPPORTED', reason: '由第 0 条推出' },
      recommendations: [{ index: 0, verdict: 'SUPPORTED', reason: '依据第 0 条' }],
      action_plan: [{ index: 0, verdict: 'SUPPORTED', reason: '依据第 0 条' }],
    };
    const server = await startDeepSeekServer(
      [
        wireToolCalls([{ id: CALL_ID, name: 'query_logs', arguments: envelope(LOGS_INPUT) }], {
          reasoning: '智能体的推理：先查日志。',
        }),
        wireText(draftAnswer(supportedDraft([CALL_ID]))),
      ],
      [wireText(judgeAnswer(verdicts), { reasoning: '裁判逐条核对。', usage: { prompt: 2_100, completion: 90 } })],
    );
    closeServer = server.close;
    const provider = createOpenAICompatible({
      name: 'deepseek',
      baseURL: server.baseURL,
      apiKey: 'sk-test',
      includeUsage: true,
    });
    const store = createMemoryStores();

    const result = await executeDiagnosisRun(
      {
        runId: 'run-http-judge',
        sessionId: 's',
        enterpriseId: 'E1001',
        query: 'E1001 的订单从 14:05 开始失败，为什么？',
        continueSession: false,
        remainingMs: 60_000,
      },
      {
        model: provider.chatModel('deepseek-v4-flash'),
        semanticGuard: { mode: 'enforce', model: provider.chatModel('deepseek-v4-pro') },
        evidence: createFakeEvidence().evidence,
        createStore: () => store,
        flushReserveMs: 100,
        limits: { finalRoundReserveMs: 100 },
      },
    );

    expect(result.status).toBe('PUBLISHED');
    expect((result.report as PublishedReport).semantic_guard).toMatchObject({
      model_id: 'deepseek-v4-pro',
      outcome: 'JUDGED',
    });
    expect(server.requests.map((request) => request.model)).toEqual(['deepseek-v4-flash', 'deepseek-v4-flash']);
    expect(server.judgeRequests).toHaveLength(1);
    const judge = server.judgeRequests[0] as { model: string; max_tokens: number; messages: { role: string }[] };
    expect(judge.model).toBe('deepseek-v4-pro');
    expect(judge).not.toHaveProperty('tools');
    expect(judge.max_tokens).toBe(6_000);
    expect(judge.messages.map((message) => message.role)).toEqual(['system', 'user']);
    expect(JSON.stringify(judge)).not.toContain('智能体的推理');

    const steps = (await store.listRunRecords('run-http-judge')).records.filter(
      (record) => record.entity === 'agent_step',
    );
    expect(steps.map((step) => [step.role, step.modelId])).toEqual([
      ['AGENT', 'deepseek-v4-flash'],
      ['AGENT', 'deepseek-v4-flash'],
      ['JUDGE', 'deepseek-v4-pro'],
    ]);
    expect(steps[2]).toMatchObject({ inputTokens: 2_100, outputTokens: 90 });
    const reasoning = (await store.listReasoning('run-http-judge')).records.at(-1);
    expect(reasoning).toMatchObject({ role: 'JUDGE', reasoningContent: '裁判逐条核对。' });
  });
});
