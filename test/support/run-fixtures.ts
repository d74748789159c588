import { createRunContext, type DiagnosisDraft, type RunContextInit } from '@diagnosis/core';

export const T0 = Date.parse('2026-11-30T06:10:00Z');

/** A run context on a fixed clock with a minute left, overridable per test. */
export function testRun(overrides: Partial<RunContextInit> = {}) {
  return createRunContext({
    runId: 'run-1',
    sessionId: 'session-1',
    enterpriseId: 'E1001',
    deadlineAt: T0 + 60_000,
    now: () => T0,
    ...overrides,
  });
}

/** A valid, supported Draft citing the given tool call ids. */
export function supportedDraft(toolCallIds: string[]): DiagnosisDraft {
  return {
    conclusion: 'payment-gateway 连接池缩小导致订单失败',
    analysis: [
      {
        type: 'FINDING',
        statement: '订单服务日志显示调用 payment-gateway 时连接池耗尽',
        evidence_status: 'SUPPORTED',
        tool_call_ids: toolCallIds,
        scope: null,
      },
    ],
    action_plan: [{ step: '恢复 payment-gateway 连接池配置', purpose: '恢复下单' }],
    recommendations: ['发布前检查连接池配置变更'],
    limitations: { checked_scope: ['E1001 订单服务 14:00–15:00 日志'], missing_info: [] },
  };
}

/**
 * A Draft as the model writes it: each analysis item's `tool_call_ids` as its `refs`, the ids as they are (a string
 * cites the id it is; a test of the numbered references writes its numbers itself).
 */
export function draftAnswer(draft: DiagnosisDraft | object): string {
  const { analysis, ...rest } = draft as DiagnosisDraft;
  return JSON.stringify({
    ...rest,
    analysis: (analysis ?? []).map(({ tool_call_ids, scope, ...item }) => ({ ...item, refs: tool_call_ids, scope })),
  });
}

/** A valid no-conclusion Draft. */
export function noConclusionDraft(missing: string[] = ['故障开始时间', '受影响的服务']): DiagnosisDraft {
  return {
    conclusion: null,
    analysis: [],
    action_plan: [],
    recommendations: [],
    limitations: { checked_scope: [], missing_info: missing },
  };
}

/** Envelope helper. */
export function envelope(input: unknown, previous?: { tool_call_id: string; evaluation: 'GAINED' | 'NO_GAIN' }) {
  return previous === undefined ? { input } : { previous_observation: previous, input };
}

export const LOGS_INPUT = {
  service: 'order-service',
  start_time: '2026-11-30T14:00:00+08:00',
  end_time: '2026-11-30T15:00:00+08:00',
  level: 'ERROR',
};
export const KNOWLEDGE_INPUT = { query: '订单失败 连接池', service: 'payment-gateway' };
