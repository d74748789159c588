import type { ModelStepEvent, ToolInvocationEvent } from '@diagnosis/core';
import type { RunOutcome } from '@diagnosis/core/store';
import { noConclusionDraft, supportedDraft } from './run-fixtures.ts';

export const STORE_T0 = Date.parse('2026-11-30T06:10:00Z');

export function stepEvent(runId: string, stepNumber: number, overrides: Partial<ModelStepEvent> = {}): ModelStepEvent {
  return {
    sessionId: 'session-1',
    runId,
    stepNumber,
    modelId: 'deepseek-v4-flash',
    finishReason: 'tool-calls',
    usage: { inputTokens: 1_200, outputTokens: 80, reasoningTokens: 30, cachedInputTokens: 1_024 },
    reasoningContent: '先查看 payment-gateway 的错误日志。',
    assistantText: '[tool_call call_00_a] query_logs {"input":{}}',
    contentSource: 'PROVIDER_REASONING+ASSISTANT_TEXT',
    contentBytes: 0,
    reasoningAvailable: true,
    truncated: false,
    toolCalls: [{ toolCallId: `call_0${stepNumber}_a`, toolName: 'query_logs' }],
    startedAt: STORE_T0,
    endedAt: STORE_T0 + 1_500,
    ...overrides,
  };
}

export function toolEvent(
  runId: string,
  toolCallId: string,
  overrides: Partial<ToolInvocationEvent> = {},
): ToolInvocationEvent {
  return {
    sessionId: 'session-1',
    runId,
    stepNumber: 1,
    toolCallId,
    toolName: 'query_logs',
    disposition: 'EXECUTED',
    status: 'READY',
    empty: false,
    code: null,
    input: { input: { service: 'payment-gateway', start_time: 'a', end_time: 'b' } },
    observation: {
      tool_call_id: toolCallId,
      evidence_status: 'OK',
      data: { matched: 1, lines: [] },
      requires_evaluation: true,
    },
    result: { matched: 1, lines: [{ timestamp: 't', level: 'ERROR', service: 's', message: 'HikariPool-1 timeout' }] },
    errorDetail: null,
    startedAt: STORE_T0 + 1_600,
    endedAt: STORE_T0 + 1_700,
    ...overrides,
  };
}

const usage = {
  modelCalls: 2,
  inputTokens: 2_400,
  outputTokens: 160,
  totalTokens: 2_560,
  cachedInputTokens: 0,
  toolCalls: 1,
  inputBytes: 100,
  outputBytes: 900,
  estimatedTokenRounds: 0,
};

export function publishedOutcome(toolCallIds: string[] = ['call_01_a']): RunOutcome {
  const draft = supportedDraft(toolCallIds);
  return {
    status: 'SUCCEEDED',
    stopReason: null,
    errorCode: null,
    usage,
    progress: {
      modelCalls: 2,
      toolCalls: 1,
      rejectedToolCalls: 0,
      totalTokens: 2_560,
      checks: toolCallIds.map((toolCallId) => ({
        toolCallId,
        toolName: 'query_logs',
        status: 'READY',
        empty: false,
        evaluation: 'GAINED',
      })),
    },
    draft,
    publishedResult: {
      draft,
      citations: toolCallIds.map((id) => ({ tool_call_id: id, tool_name: 'query_logs', empty: false })),
    },
    report: { kind: 'published', conclusion: draft.conclusion },
  };
}

export function fallbackOutcome(): RunOutcome {
  return {
    status: 'FALLBACK',
    stopReason: 'DEADLINE',
    errorCode: 'GUARD_UNKNOWN_CITATION',
    usage,
    progress: null,
    draft: noConclusionDraft(),
    publishedResult: null,
    report: { kind: 'fallback' },
  };
}

export function failedOutcome(): RunOutcome {
  return {
    status: 'FAILED',
    stopReason: null,
    errorCode: 'MODEL_FAILED',
    usage,
    progress: null,
    draft: null,
    publishedResult: null,
    report: null,
  };
}
