import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { DiagnosisExecutionError, type RunContextInit, runDiagnosis } from '@diagnosis/core';
import { afterEach, describe, expect, it } from 'vitest';
import { startDeepSeekServer, type WireScript, wireText, wireToolCalls } from '../support/deepseek-server.ts';
import { createFakeEvidence } from '../support/fake-evidence.ts';
import { createMemoryAudit } from '../support/memory-audit.ts';
import {
  draftAnswer,
  envelope,
  LOGS_INPUT,
  noConclusionDraft,
  supportedDraft,
  testRun,
} from '../support/run-fixtures.ts';

const CALL_ID = 'call_00_lCIkdHRa7AKmCG3TlxXz1061';
let closeServer: (() => Promise<void>) | undefined;

afterEach(async () => {
  await closeServer?.();
  closeServer = undefined;
});

async function diagnoseOverHttp(
  script: WireScript,
  options: { limits?: Record<string, number>; run?: Partial<RunContextInit> } = {},
) {
  const server = await startDeepSeekServer(script);
  closeServer = server.close;
  const provider = createOpenAICompatible({
    name: 'deepseek',
    baseURL: server.baseURL,
    apiKey: 'sk-test',
    includeUsage: true,
  });
  const fake = createFakeEvidence();
  const audit = createMemoryAudit();
  const outcome = await runDiagnosis(
    {
      run: testRun({ ...options.run, limits: options.limits ?? {} }),
      query: 'E1001 的订单从 14:05 开始失败，为什么？',
    },
    { model: provider.chatModel('deepseek-v4-flash'), evidence: fake.evidence, audit: audit.hook },
  ).then(
    (result) => ({ ok: true as const, result }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  return { outcome, server, adapterCalls: fake.calls, audit };
}

describe('runDiagnosis over the real openai-compatible provider and DeepSeek wire format', () => {
  it('runs two rounds with DeepSeek ids and captures reasoning, text and usage', async () => {
    const { outcome, server, adapterCalls, audit } = await diagnoseOverHttp([
      wireToolCalls([{ id: CALL_ID, name: 'query_logs', arguments: envelope(LOGS_INPUT) }], {
        reasoning: '先查 order-service 的错误日志。',
        usage: { prompt: 1_200, completion: 60, reasoning: 16, cacheHit: 1_024 },
      }),
      wireText(draftAnswer(supportedDraft([CALL_ID])), {
        reasoning: '日志显示连接池耗尽。',
        usage: { prompt: 1_500, completion: 300, reasoning: 113 },
      }),
    ]);

    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.result.draft?.analysis[0]?.tool_call_ids).toEqual([CALL_ID]);
    expect(server.requests).toHaveLength(2);
    expect(adapterCalls.map((call) => call.toolCallId)).toEqual([CALL_ID]);
    expect(audit.steps[0]).toMatchObject({
      reasoningContent: '先查 order-service 的错误日志。',
      contentSource: 'PROVIDER_REASONING+ASSISTANT_TEXT',
      toolCalls: [{ toolCallId: CALL_ID, toolName: 'query_logs' }],
      usage: { inputTokens: 1_200, outputTokens: 60, reasoningTokens: 16, cachedInputTokens: 1_024 },
    });
    expect(audit.steps[1]).toMatchObject({
      reasoningContent: '日志显示连接池耗尽。',
      assistantText: draftAnswer(supportedDraft([CALL_ID])),
      contentSource: 'PROVIDER_REASONING+ASSISTANT_TEXT',
      reasoningAvailable: true,
      usage: { inputTokens: 1_500, outputTokens: 300, reasoningTokens: 113, cachedInputTokens: 0 },
    });
    expect(outcome.result.progress.totalTokens).toBe(1_260 + 1_800);
  });

  it('sends the earlier reasoning and tool call back within the run, and the observation as the tool message', async () => {
    const { server } = await diagnoseOverHttp([
      wireToolCalls([{ id: CALL_ID, name: 'query_logs', arguments: envelope(LOGS_INPUT) }], { reasoning: '查日志' }),
      wireText(draftAnswer(supportedDraft([CALL_ID]))),
    ]);
    const messages = server.requests[1]?.messages as Record<string, unknown>[];
    const assistant = messages.find((message) => message.role === 'assistant');
    expect(assistant).toMatchObject({ reasoning_content: '查日志', tool_calls: [{ id: CALL_ID }] });
    const tool = messages.find((message) => message.role === 'tool');
    expect(tool?.tool_call_id).toBe(CALL_ID);
    expect(JSON.parse(tool?.content as string)).toMatchObject({ tool_call_id: CALL_ID, evidence_status: 'OK' });
    expect(server.requests[0]).toMatchObject({ model: 'deepseek-v4-flash' });
    expect(server.requests[0]?.messages).toEqual([
      { role: 'system', content: expect.stringContaining('diagnosis_agent') },
      {
        role: 'user',
        content:
          '{"query":"E1001 的订单从 14:05 开始失败，为什么？","now":"2026-11-30T14:10:00+08:00","timezone":"Asia/Shanghai","previous_turn":null}',
      },
    ]);
  });

  it('still stops the run on its token budget when the server sends no usage, and records the estimate', async () => {
    const { usage: _none, ...withoutUsage } = wireToolCalls([
      { id: CALL_ID, name: 'query_logs', arguments: envelope(LOGS_INPUT) },
    ]);
    const { outcome, server, adapterCalls, audit } = await diagnoseOverHttp(
      [withoutUsage, wireText(draftAnswer(supportedDraft([CALL_ID])))],
      { limits: { maxTotalTokens: 2_000 } },
    );

    expect(server.requests).toHaveLength(1);
    expect(outcome.ok && outcome.result).toMatchObject({ draft: null, stopReason: 'TOKEN_BUDGET' });
    expect(adapterCalls).toHaveLength(0);
    expect(audit.steps).toHaveLength(1);
    expect(audit.steps[0]?.usageEstimated).toBe(true);
    expect(audit.steps[0]?.usage.inputTokens).toBeGreaterThan(2_000);
  });

  it('counts an empty reasoning_content as no reasoning', async () => {
    const { audit } = await diagnoseOverHttp([wireText(JSON.stringify(noConclusionDraft()), { reasoning: '' })]);
    expect(audit.steps[0]).toMatchObject({
      reasoningContent: '',
      reasoningAvailable: false,
      contentSource: 'ASSISTANT_TEXT',
    });
  });

  it('captures the provider’s own `thinking` key when the SDK’s reasoning field is empty', async () => {
    const reply = wireText(JSON.stringify(noConclusionDraft()), { reasoning: '' });
    const choice = reply.choices[0];
    if (choice === undefined) throw new Error('the wire reply has no choice');
    Object.assign(choice.message, { thinking: '先确认企业与时间窗，再查日志。' });
    const { audit } = await diagnoseOverHttp([reply]);
    expect(audit.steps[0]).toMatchObject({
      reasoningContent: '先确认企业与时间窗，再查日志。',
      reasoningAvailable: true,
      contentSource: 'PROVIDER_REASONING+ASSISTANT_TEXT',
    });
  });

  it('prefers the SDK’s reasoning field over the provider’s `thinking` key when both are set', async () => {
    const reply = wireText(JSON.stringify(noConclusionDraft()), { reasoning: '看日志。' });
    const choice = reply.choices[0];
    if (choice === undefined) throw new Error('the wire reply has no choice');
    Object.assign(choice.message, { thinking: '另一段文字' });
    const { audit } = await diagnoseOverHttp([reply]);
    expect(audit.steps[0]?.reasoningContent).toBe('看日志。');
  });

  it('fails closed after exactly one request when the API answers HTTP 500', async () => {
    const { outcome, server } = await diagnoseOverHttp([
      { status: 500, body: { error: { message: 'Internal error on host api-7 with key sk-test' } } },
      wireText(JSON.stringify(noConclusionDraft())),
    ]);
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error).toBeInstanceOf(DiagnosisExecutionError);
    expect(outcome.error).toMatchObject({ code: 'MODEL_FAILED' });
    expect((outcome.error as Error).message).not.toMatch(/sk-test|api-7/);
    expect(server.requests).toHaveLength(1);
  });

  it('fails with MODEL_TIMEOUT within the per-request limit, long before the deadline, when the endpoint hangs', async () => {
    const deadlineAt = Date.now() + 8_000;
    const { outcome, server } = await diagnoseOverHttp([() => new Promise(() => undefined)], {
      run: { now: Date.now, deadlineAt },
      limits: { modelRequestTimeoutMs: 300, finalRoundReserveMs: 1_000 },
    });
    expect(Date.now()).toBeLessThan(deadlineAt);
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error).toMatchObject({ code: 'MODEL_TIMEOUT', modelFailure: { kind: 'TIMEOUT' } });
    expect(server.requests).toHaveLength(1);
  });

  it('keeps every request of a stopped run a continuation of the one before, the last one with tool_choice none', async () => {
    const second = 'call_01_second';
    const { outcome, server } = await diagnoseOverHttp(
      [
        wireToolCalls([{ id: CALL_ID, name: 'query_logs', arguments: envelope(LOGS_INPUT) }]),
        wireToolCalls([
          {
            id: second,
            name: 'query_logs',
            arguments: envelope({ ...LOGS_INPUT, keyword: 'pool' }, { tool_call_id: CALL_ID, evaluation: 'GAINED' }),
          },
        ]),
        wireText(draftAnswer(supportedDraft([CALL_ID, second]))),
      ],
      { limits: { maxToolCalls: 2 } },
    );
    expect(outcome.ok && outcome.result.stopReason).toBe('TOOL_CALL_BUDGET');
    const bodies = server.requests;
    expect(bodies).toHaveLength(3);
    expect(bodies[0]?.tools).toHaveLength(3);
    for (const [index, body] of bodies.entries()) {
      if (index === 0) continue;
      const previous = bodies[index - 1] as { tools?: unknown; messages: unknown[] };
      const messages = body.messages as unknown[];
      // DeepSeek caches by exact prefix: the same tools, then the previous request's messages, unchanged.
      expect(JSON.stringify(body.tools)).toBe(JSON.stringify(previous.tools));
      expect(JSON.stringify(messages.slice(0, previous.messages.length))).toBe(JSON.stringify(previous.messages));
    }
    expect(bodies.map((body) => body.tool_choice === 'none')).toEqual([false, false, true]);
  });

  it('returns STOP_IGNORED when the model calls a tool in the final round anyway', async () => {
    const { outcome, server } = await diagnoseOverHttp(
      [
        wireToolCalls([{ id: CALL_ID, name: 'query_logs', arguments: envelope(LOGS_INPUT) }]),
        wireToolCalls([{ id: 'call_01_x', name: 'lookup_knowledge', arguments: envelope({ query: 'q' }) }]),
      ],
      { limits: { maxToolCalls: 1 } },
    );
    expect(outcome.ok && outcome.result).toMatchObject({ draft: null, stopReason: 'STOP_IGNORED' });
    expect(server.requests).toHaveLength(2);
  });
});
